package io.redeq;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntToLongFunction;
import java.util.function.Supplier;

import io.redeq.internal.LayoutFollower;
import io.redeq.internal.admin.QueueAdmin;
import io.redeq.internal.admin.StepwisePurge;

/**
 * The admin an engine hands out: each operation runs on the admin of the bucket layout
 * the engine runs on at that moment, and one that a change of the bucket count refused
 * runs again once the engine followed the change (a refused script changed nothing).
 * Operations that walk every bucket (requeue or purge all) run again from the start on
 * the new layout, where what they already did is no longer there to do.
 */
final class LayoutFollowingAdmin implements RedeqAdmin, StepwisePurge {

	private final Supplier<LayoutParts> parts;

	private final LayoutFollower follower;

	/** Changes the bucket count and makes this engine follow it; returns jobs moved. */
	private final IntToLongFunction changeBucketCount;

	LayoutFollowingAdmin(Supplier<LayoutParts> parts, LayoutFollower follower, IntToLongFunction changeBucketCount) {
		this.parts = parts;
		this.follower = follower;
		this.changeBucketCount = changeBucketCount;
	}

	private <T> T onCurrentLayout(Function<QueueAdmin, T> operation) {
		return this.follower.retrying(() -> this.parts.get().buckets(), () -> operation.apply(this.parts.get().admin));
	}

	private void onCurrentLayoutDo(Consumer<QueueAdmin> operation) {
		onCurrentLayout((admin) -> {
			operation.accept(admin);
			return null;
		});
	}

	@Override
	public Set<String> topics() {
		return onCurrentLayout(QueueAdmin::topics);
	}

	@Override
	public TopicStats stats(String topic) {
		return onCurrentLayout((admin) -> admin.stats(topic));
	}

	@Override
	public List<JobView> jobs(String topic, JobState state, int offset, int limit) {
		return onCurrentLayout((admin) -> admin.jobs(topic, state, offset, limit));
	}

	@Override
	public Optional<JobView> job(String topic, String id) {
		return onCurrentLayout((admin) -> admin.job(topic, id));
	}

	@Override
	public List<DeadJob> deadJobs(String topic, int offset, int limit) {
		return onCurrentLayout((admin) -> admin.deadJobs(topic, offset, limit));
	}

	@Override
	public boolean requeueDead(String topic, String id) {
		return onCurrentLayout((admin) -> admin.requeueDead(topic, id));
	}

	@Override
	public void pause(String topic) {
		onCurrentLayoutDo((admin) -> admin.pause(topic));
	}

	@Override
	public void resume(String topic) {
		onCurrentLayoutDo((admin) -> admin.resume(topic));
	}

	@Override
	public boolean isPaused(String topic) {
		return onCurrentLayout((admin) -> admin.isPaused(topic));
	}

	@Override
	public boolean promote(String topic, String id) {
		return onCurrentLayout((admin) -> admin.promote(topic, id));
	}

	@Override
	public long requeueAllDead(String topic) {
		return onCurrentLayout((admin) -> admin.requeueAllDead(topic));
	}

	@Override
	public long purgeDead(String topic) {
		return onCurrentLayout((admin) -> admin.purgeDead(topic));
	}

	@Override
	public long purge(String topic, JobState state) {
		return onCurrentLayout((admin) -> admin.purge(topic, state));
	}

	@Override
	public long purge(String topic, JobState state, Consumer<List<String>> deleted) {
		return onCurrentLayout((admin) -> admin.purge(topic, state, deleted));
	}

	@Override
	public List<RecurringInfo> recurring() {
		return onCurrentLayout(QueueAdmin::recurring);
	}

	@Override
	public boolean cancelRecurring(String topic, String id) {
		return onCurrentLayout((admin) -> admin.cancelRecurring(topic, id));
	}

	@Override
	public List<InstanceInfo> instances() {
		return this.parts.get().admin.instances();
	}

	@Override
	public long changeBucketCount(int buckets) {
		return this.changeBucketCount.applyAsLong(buckets);
	}

}
