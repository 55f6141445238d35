package io.redeq.example;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API boundary of core and starter, checked on their compiled classes. This
 * module sees the core, the starter and an application using them, so the rules live
 * here.
 *
 * <p>
 * API packages are {@code io.redeq}, {@code io.redeq.spring} and {@code io.redeq.spi}.
 * {@code io.redeq.spring.boot.autoconfigure..} is configuration: its classes are public
 * as Spring Boot's convention wants (excluded by name, customised through properties and
 * {@code RedeqBuilderCustomizer}), but they are not API and may name internal types.
 * Everything under an {@code internal} package may change in any version.
 */
class ArchitectureTests {

	static final Set<String> API_PACKAGES = Set.of("io.redeq", "io.redeq.spring", "io.redeq.spi");

	static JavaClasses production;

	@BeforeAll
	static void importClasses() {
		// Core and starter come as class directories or as jars, depending on how far the
		// reactor got before this test runs, so jars are imported too.
		production = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("io.redeq");
		for (String name : List.of("io.redeq.Redeq", "io.redeq.internal.redis.RedisJobStore",
				"io.redeq.spring.RedeqListener", "io.redeq.spring.internal.journal.RedeqJournal",
				"io.redeq.example.ExampleApplication")) {
			assertThat(production.contain(name)).as("imported %s", name).isTrue();
		}
	}

	@Test
	void apiTypesExposeNoInternalType() {
		apiExposesNoInternalType().check(production);
	}

	@Test
	void exampleApplicationUsesOnlyTheApi() {
		exampleUsesOnlyTheApi().check(production);
	}

	@Test
	void coreInternalPackagesAreFreeOfCycles() {
		SlicesRuleDefinition.slices().matching("io.redeq.internal.(*)..").should().beFreeOfCycles().check(production);
	}

	/**
	 * The slices above cut after {@code internal}, so the Redis layer is one slice there.
	 * This rule cuts it into its own packages, the stores of
	 * {@code io.redeq.internal.redis} itself included (which
	 * {@code matching("io.redeq.internal.redis.(*)..")} would leave out), so that its
	 * dependencies stay one way: stores, then script machinery, then connections.
	 */
	@Test
	void redisLayerPackagesAreFreeOfCycles() {
		SlicesRuleDefinition.slices().assignedFrom(REDIS_LAYER).should().beFreeOfCycles().check(production);
	}

	static final SliceAssignment REDIS_LAYER = new SliceAssignment() {

		private static final String ROOT = "io.redeq.internal.redis";

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			String name = javaClass.getPackageName();
			if (name.equals(ROOT)) {
				return SliceIdentifier.of("redis");
			}
			if (name.startsWith(ROOT + ".")) {
				return SliceIdentifier.of("redis." + name.substring(ROOT.length() + 1).split("\\.")[0]);
			}
			return SliceIdentifier.ignore();
		}

		@Override
		public String getDescription() {
			return "the packages of the Redis layer";
		}

	};

	@Test
	void starterInternalPackagesAreFreeOfCycles() {
		SlicesRuleDefinition.slices()
			.matching("io.redeq.spring.internal.(*)..")
			.should()
			.beFreeOfCycles()
			.check(production);
	}

	static ArchRule apiExposesNoInternalType() {
		return ArchRuleDefinition.classes()
			.that(areVisibleApi())
			.should(exposeNoInternalType())
			.because("a user compiles against io.redeq, io.redeq.spring and io.redeq.spi only; "
					+ "internal packages may change in any version");
	}

	static ArchRule exampleUsesOnlyTheApi() {
		return ArchRuleDefinition.noClasses()
			.that()
			.resideInAPackage("io.redeq.example..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("..internal..", "io.redeq.spring.boot..")
			.because("the example shows what an application may use: the API, beans and properties");
	}

	static boolean isInternal(JavaClass type) {
		String name = type.getPackageName();
		return name.endsWith(".internal") || name.contains(".internal.");
	}

	private static DescribedPredicate<JavaClass> areVisibleApi() {
		return DescribedPredicate.describe("are public types of an API package", (type) -> {
			if (!API_PACKAGES.contains(type.getPackageName())) {
				return false;
			}
			for (JavaClass c = type; c != null; c = c.getEnclosingClass().orElse(null)) {
				if (!c.getModifiers().contains(JavaModifier.PUBLIC)) {
					return false;
				}
			}
			return true;
		});
	}

	private static ArchCondition<JavaClass> exposeNoInternalType() {
		return new ArchCondition<>("expose no internal type in a public or protected signature") {

			@Override
			public void check(JavaClass type, ConditionEvents events) {
				Set<String> problems = new LinkedHashSet<>();
				type.getRawSuperclass()
					.ifPresent((superclass) -> report(problems, "extends", type.getSuperclass().orElseThrow()));
				for (JavaType implemented : type.getInterfaces()) {
					report(problems, "implements", implemented);
				}
				for (JavaField field : type.getFields()) {
					if (isVisible(field)) {
						report(problems, "field " + field.getName(), field.getType());
					}
				}
				for (JavaCodeUnit unit : type.getCodeUnits()) {
					if (!isVisible(unit) || unit.getModifiers().contains(JavaModifier.SYNTHETIC)
							|| unit.getModifiers().contains(JavaModifier.BRIDGE)) {
						continue;
					}
					String where = unit.getName() + "(...)";
					report(problems, where + " returns", unit.getReturnType());
					for (JavaType parameter : unit.getParameterTypes()) {
						report(problems, where + " takes", parameter);
					}
					for (JavaClass thrown : unit.getThrowsClause().getTypes()) {
						report(problems, where + " throws", thrown);
					}
				}
				for (String problem : problems) {
					events.add(SimpleConditionEvent.violated(type, type.getName() + " " + problem));
				}
				if (problems.isEmpty()) {
					events.add(SimpleConditionEvent.satisfied(type, type.getName() + " exposes only API types"));
				}
			}

		};
	}

	private static boolean isVisible(JavaMember member) {
		return member.getModifiers().contains(JavaModifier.PUBLIC)
				|| member.getModifiers().contains(JavaModifier.PROTECTED);
	}

	private static void report(Set<String> problems, String where, JavaType type) {
		for (JavaClass involved : type.getAllInvolvedRawTypes()) {
			if (isInternal(involved)) {
				problems.add(where + " " + involved.getName());
			}
		}
	}

}
