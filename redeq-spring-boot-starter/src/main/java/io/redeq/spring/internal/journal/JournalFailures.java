package io.redeq.spring.internal.journal;

import java.sql.SQLDataException;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

/**
 * Tells a failed journal write whose cause is the database (down, unreachable, a
 * deadlock, the table missing: retried until it answers, nothing is lost) from one the
 * database refused because of what an event holds (a value too long for its column, a
 * character its encoding cannot store, a payload that cannot be turned into JSON: that
 * event is set aside and the others are written).
 *
 * <p>
 * The SQLState class decides where the driver gives one: {@code 22} (data exception) and
 * {@code 23} (integrity constraint) are the event's; {@code 08} (connection), {@code 40}
 * (rollback, deadlock, serialization), {@code 53}/{@code 57}/{@code 58} (resources,
 * operator intervention, system) and {@code 42}/{@code 28}/{@code 3D}/{@code 0A} (the
 * table, the user or the database itself) are the database's. Without a state, the JDBC
 * exception type decides. What neither says is {@link Fault#UNKNOWN}: the writer then
 * asks whether the database answers at all before it looks for a culprit.
 */
final class JournalFailures {

	/** Where a failed write's cause lies. */
	enum Fault {

		/** The database failed as a whole: retry the same events later. */
		DATABASE,

		/** The database refused a value of an event: find it, set it aside. */
		EVENT,

		/** Neither is known. */
		UNKNOWN

	}

	private static final Set<String> EVENT_CLASSES = Set.of("22", "23");

	private static final Set<String> DATABASE_CLASSES = Set.of("08", "40", "53", "57", "58", "42", "28", "3D", "0A");

	private JournalFailures() {
	}

	static Fault classify(Throwable failure) {
		if (failure instanceof JacksonException) {
			return Fault.EVENT; // a payload Jackson cannot write; the database never saw
								// it
		}
		Fault byType = Fault.UNKNOWN;
		for (SQLException ex : sqlExceptions(failure)) {
			String state = ex.getSQLState();
			if (state != null && state.length() >= 2) {
				String stateClass = state.substring(0, 2).toUpperCase(Locale.ROOT);
				if (EVENT_CLASSES.contains(stateClass)) {
					return Fault.EVENT;
				}
				if (DATABASE_CLASSES.contains(stateClass)) {
					return Fault.DATABASE;
				}
			}
			if (ex instanceof SQLTransientException || ex instanceof SQLRecoverableException
					|| ex instanceof SQLNonTransientConnectionException) {
				byType = Fault.DATABASE;
			}
			else if (byType == Fault.UNKNOWN
					&& (ex instanceof SQLDataException || ex instanceof SQLIntegrityConstraintViolationException)) {
				byType = Fault.EVENT;
			}
		}
		return byType;
	}

	/**
	 * The database's own words: the message of the innermost SQL exception (a batch's
	 * exception often only says that the batch failed).
	 */
	static String reason(Throwable failure) {
		List<SQLException> chain = sqlExceptions(failure);
		Throwable innermost = chain.isEmpty() ? failure : chain.get(chain.size() - 1);
		String message = innermost.getMessage();
		return innermost.getClass().getSimpleName() + ": " + ((message != null) ? message.strip() : "(no message)");
	}

	/** The SQL exceptions of a failure: its causes and each one's next exceptions. */
	private static List<SQLException> sqlExceptions(Throwable failure) {
		List<SQLException> found = new ArrayList<>();
		@Nullable Throwable cause = failure;
		for (int depth = 0; cause != null && depth < 10; depth++) {
			if (cause instanceof SQLException sql) {
				SQLException next = sql;
				for (int i = 0; next != null && i < 10; i++) {
					if (!found.contains(next)) {
						found.add(next);
					}
					next = next.getNextException();
				}
			}
			cause = (cause.getCause() != cause) ? cause.getCause() : null;
		}
		return found;
	}

}
