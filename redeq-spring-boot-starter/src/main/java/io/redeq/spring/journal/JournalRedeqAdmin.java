package io.redeq.spring.journal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.jspecify.annotations.Nullable;

import io.redeq.RedeqAdmin;

/**
 * The engine's admin, with {@link RedeqAdmin#recoverFromJournal()} answered by the
 * journal. A proxy rather than a class that delegates method by method: every other
 * operation, including those later versions add to {@link RedeqAdmin}, goes to the
 * engine's admin unchanged.
 */
public final class JournalRedeqAdmin implements InvocationHandler {

	private static final String RECOVER = "recoverFromJournal";

	private final RedeqAdmin target;

	private final RedeqJournal journal;

	private JournalRedeqAdmin(RedeqAdmin target, RedeqJournal journal) {
		this.target = target;
		this.journal = journal;
	}

	/**
	 * Wraps the engine's admin.
	 * @param target the engine's admin
	 * @param journal the journal
	 * @return an admin whose {@code recoverFromJournal()} recovers from the journal
	 */
	public static RedeqAdmin wrap(RedeqAdmin target, RedeqJournal journal) {
		return (RedeqAdmin) Proxy.newProxyInstance(JournalRedeqAdmin.class.getClassLoader(),
				new Class<?>[] { RedeqAdmin.class }, new JournalRedeqAdmin(target, journal));
	}

	/**
	 * Whether an admin is one that {@link #wrap} made.
	 * @param admin an admin
	 * @return true if its {@code recoverFromJournal()} uses the journal
	 */
	public static boolean isJournaling(RedeqAdmin admin) {
		return Proxy.isProxyClass(admin.getClass()) && Proxy.getInvocationHandler(admin) instanceof JournalRedeqAdmin;
	}

	@Override
	public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
		if (method.getName().equals(RECOVER) && method.getParameterCount() == 0) {
			return this.journal.recover();
		}
		if (method.getName().equals("toString") && method.getParameterCount() == 0) {
			return "JournalRedeqAdmin[" + this.target + "]";
		}
		try {
			return method.invoke(this.target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
