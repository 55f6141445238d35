package io.redeq.test;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * A Java agent that moves a JVM's wall clock by a whole number of seconds, for tests that
 * need an instance whose clock is wrong ({@link JavaProcess#startWithClockOffset}). It
 * does in bytecode what libfaketime does in libc, so the tests need no OS package.
 * <p>
 * Every class the JVM loads (the JDK's own included, and those loaded before the agent
 * ran) has its calls rewritten: {@code System.currentTimeMillis()} returns the shifted
 * time, and {@code jdk.internal.misc.VM.getNanoTimeAdjustment(offset)}, the source of
 * {@code Instant.now()} and of every {@code java.time.Clock.system*} clock, answers as if
 * the clock were shifted. So {@code new Date()}, {@code Instant.now()},
 * {@code LocalDateTime.now()} and the code of every library see the same wrong time.
 * {@code System.nanoTime()}, which the JVM needs to be real, is left alone, as
 * libfaketime's {@code FAKETIME_DONT_FAKE_MONOTONIC} did.
 * <p>
 * The argument is the offset in seconds, e.g. {@code -javaagent:agent.jar=-30}.
 */
public final class ClockShiftAgent {

	private static final String AGENT = ClockShiftAgent.class.getName().replace('.', '/');

	private static final String SYSTEM = "java/lang/System";

	private static final String VM = "jdk/internal/misc/VM";

	private static final byte[] CURRENT_TIME_MILLIS = "currentTimeMillis".getBytes(StandardCharsets.UTF_8);

	private static final byte[] GET_NANO_TIME_ADJUSTMENT = "getNanoTimeAdjustment".getBytes(StandardCharsets.UTF_8);

	private ClockShiftAgent() {
	}

	/**
	 * Entry point of {@code -javaagent}.
	 * @param arguments the offset in whole seconds, negative for a clock that is behind
	 * @param instrumentation the JVM's instrumentation
	 */
	public static void premain(String arguments, Instrumentation instrumentation) {
		long offsetSeconds = Long.parseLong(arguments.trim());
		Transformer transformer = new Transformer(offsetSeconds);
		// Load everything the transformer uses before it is installed, so that it never
		// loads (and is asked to transform) a class while it transforms one.
		transformer.rewrite(classBytes(ClockShiftAgent.class));
		instrumentation.addTransformer(transformer, true);
		List<Class<?>> loaded = new ArrayList<>();
		for (Class<?> type : instrumentation.getAllLoadedClasses()) {
			if (instrumentation.isModifiableClass(type) && !type.isArray()) {
				loaded.add(type);
			}
		}
		try {
			instrumentation.retransformClasses(loaded.toArray(Class<?>[]::new));
		}
		catch (UnmodifiableClassException ex) {
			throw new IllegalStateException("Could not shift the clock of the classes already loaded", ex);
		}
	}

	private static byte[] classBytes(Class<?> type) {
		try (var in = type.getResourceAsStream(type.getSimpleName() + ".class")) {
			return in.readAllBytes();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	private static boolean contains(byte[] haystack, byte[] needle) {
		outer: for (int i = 0; i <= haystack.length - needle.length; i++) {
			for (int j = 0; j < needle.length; j++) {
				if (haystack[i + j] != needle[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	/** Rewrites the clock calls of one class; answers null for a class without any. */
	private static final class Transformer implements ClassFileTransformer {

		private final long offsetSeconds;

		Transformer(long offsetSeconds) {
			this.offsetSeconds = offsetSeconds;
		}

		@Override
		public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
				ProtectionDomain domain, byte[] classfile) {
			if (className == null || className.startsWith("org/objectweb/asm/") || className.equals(AGENT)
					|| className.startsWith(AGENT + "$")) {
				return null;
			}
			if (!contains(classfile, CURRENT_TIME_MILLIS) && !contains(classfile, GET_NANO_TIME_ADJUSTMENT)) {
				return null;
			}
			try {
				return rewrite(classfile);
			}
			catch (RuntimeException | Error ex) {
				// A transformer's exception is swallowed by the JVM: say which class kept
				// the real clock, so that a test failing on it is explained.
				System.err.println("ClockShiftAgent could not rewrite " + className + ": " + ex);
				return null;
			}
		}

		byte[] rewrite(byte[] classfile) {
			ClassReader reader = new ClassReader(classfile);
			ClassWriter writer = new ClassWriter(reader, 0);
			boolean[] changed = new boolean[1];
			reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
				@Override
				public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
						String[] exceptions) {
					return new ShiftingMethod(super.visitMethod(access, name, descriptor, signature, exceptions),
							Transformer.this.offsetSeconds, changed);
				}
			}, 0);
			return (changed[0]) ? writer.toByteArray() : null;
		}

	}

	/**
	 * Shifts the clock calls of one method: adds the offset to what
	 * {@code currentTimeMillis} returns, and subtracts it from the base that
	 * {@code getNanoTimeAdjustment} measures from (which keeps its -1 "base too far"
	 * answer intact). Each needs two more long slots on the operand stack.
	 */
	private static final class ShiftingMethod extends MethodVisitor {

		private final long offsetSeconds;

		private final boolean[] changed;

		private boolean shiftedHere;

		ShiftingMethod(MethodVisitor delegate, long offsetSeconds, boolean[] changed) {
			super(Opcodes.ASM9, delegate);
			this.offsetSeconds = offsetSeconds;
			this.changed = changed;
		}

		@Override
		public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
			boolean millis = opcode == Opcodes.INVOKESTATIC && SYSTEM.equals(owner) && "currentTimeMillis".equals(name)
					&& "()J".equals(descriptor);
			boolean adjustment = opcode == Opcodes.INVOKESTATIC && VM.equals(owner)
					&& "getNanoTimeAdjustment".equals(name) && "(J)J".equals(descriptor);
			if (adjustment) {
				super.visitLdcInsn(this.offsetSeconds);
				super.visitInsn(Opcodes.LSUB);
			}
			super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
			if (millis) {
				super.visitLdcInsn(this.offsetSeconds * 1000);
				super.visitInsn(Opcodes.LADD);
			}
			if (millis || adjustment) {
				this.shiftedHere = true;
				this.changed[0] = true;
			}
		}

		@Override
		public void visitMaxs(int maxStack, int maxLocals) {
			super.visitMaxs((this.shiftedHere) ? maxStack + 4 : maxStack, maxLocals);
		}

	}

}
