package io.redeq.spring.internal.journal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.redeq.DeadJob;
import io.redeq.JobState;
import io.redeq.RedeqAdmin;
import io.redeq.internal.admin.StepwisePurge;

/**
 * The engine's admin, with {@link RedeqAdmin#recoverFromJournal()} answered by the
 * journal, and the operations that change a job recorded in it: {@code promote},
 * {@code requeueDead} and {@code requeueAllDead}. A proxy rather than a class that
 * delegates method by method: every other operation, including those later versions add
 * to {@link RedeqAdmin}, goes to the engine's admin unchanged. {@code purge} of DELAYED
 * or READY jobs records each job it deleted as cancelled. ({@code purgeDead} and
 * {@code purge} of DEAD jobs delete dead jobs, whose rows are finished already.)
 */
public final class JournalRedeqAdmin implements InvocationHandler {

	private static final Log logger = LogFactory.getLog(JournalRedeqAdmin.class);

	/** Dead jobs requeued per page by {@code requeueAllDead}. */
	private static final int REQUEUE_PAGE = 200;

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
		String name = method.getName();
		int arity = method.getParameterCount();
		if (name.equals("recoverFromJournal") && arity == 0) {
			return this.journal.recover();
		}
		if (name.equals("toString") && arity == 0) {
			return "JournalRedeqAdmin[" + this.target + "]";
		}
		if (args != null && arity == 2 && (name.equals("promote") || name.equals("requeueDead"))) {
			return changeOne(name, (String) args[0], (String) args[1]);
		}
		if (args != null && arity == 1 && name.equals("requeueAllDead")) {
			return requeueAllDead((String) args[0]);
		}
		if (args != null && arity == 2 && name.equals("purge")
				&& (args[1] == JobState.DELAYED || args[1] == JobState.READY)) {
			if (this.target instanceof StepwisePurge engine) {
				return purgeWaiting(engine, (String) args[0], (JobState) args[1]);
			}
			logger.warn("redeq journal cannot record the jobs a purge of " + args[1] + " jobs of topic '" + args[0]
					+ "' deletes: the admin " + this.target + " is not the engine's; their rows stay pending, and a "
					+ "recovery from the journal would send them again");
		}
		try {
			return method.invoke(this.target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	private boolean changeOne(String operation, String topic, String id) {
		JournalAdminChanges changes = this.journal.adminChanges();
		changes.catchUp();
		if (operation.equals("promote")) {
			boolean promoted = this.target.promote(topic, id);
			if (promoted) {
				changes.promoted(topic, id);
			}
			return promoted;
		}
		boolean requeued = this.target.requeueDead(topic, id);
		if (requeued) {
			changes.requeued(topic, id);
		}
		return requeued;
	}

	/**
	 * Purges through the engine's admin, which tells the ids of each step once it deleted
	 * them: each is journaled as cancelled before the next step runs.
	 */
	private long purgeWaiting(StepwisePurge engine, String topic, JobState state) {
		JournalAdminChanges changes = this.journal.adminChanges();
		return engine.purge(topic, state, (ids) -> changes.cancelled(topic, ids));
	}

	/**
	 * Requeues the topic's dead jobs one by one, so that each is recorded: the engine's
	 * bulk requeue does not say which jobs it took. Bounded by the dead jobs there were
	 * at the start, so jobs dying meanwhile cannot keep it going.
	 */
	private long requeueAllDead(String topic) {
		JournalAdminChanges changes = this.journal.adminChanges();
		changes.catchUp();
		long budget = this.target.stats(topic).dead();
		long requeued = 0;
		while (requeued < budget) {
			List<DeadJob> page = this.target.deadJobs(topic, 0, (int) Math.min(REQUEUE_PAGE, budget - requeued));
			if (page.isEmpty()) {
				break;
			}
			long before = requeued;
			for (DeadJob dead : page) {
				if (this.target.requeueDead(topic, dead.id())) {
					changes.requeued(topic, dead.id());
					requeued++;
				}
			}
			if (requeued == before) {
				break;
			}
		}
		return requeued;
	}

}
