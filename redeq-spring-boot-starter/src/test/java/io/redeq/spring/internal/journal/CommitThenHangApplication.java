package io.redeq.spring.internal.journal;

import java.util.concurrent.CountDownLatch;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import io.redeq.Job;
import io.redeq.RedeqClient;
import io.redeq.spring.boot.autoconfigure.RedeqAutoConfiguration;
import io.redeq.spring.boot.autoconfigure.RedeqJournalAutoConfiguration;

/**
 * The application that dies between its commit and the send: it schedules a job in a
 * transaction, and a synchronization that runs before redeq's send after commit prints
 * {@value #COMMITTED} and waits forever, so the test can SIGKILL it at that very point.
 * Arguments: Redis port, JDBC URL, database user, job id.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DataSourceAutoConfiguration.class,
		DataSourceTransactionManagerAutoConfiguration.class, RedeqAutoConfiguration.class,
		RedeqJournalAutoConfiguration.class })
public class CommitThenHangApplication {

	static final String COMMITTED = "COMMITTED-NOT-SENT";

	public static void main(String[] args) throws InterruptedException {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(CommitThenHangApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + args[0],
					"spring.datasource.url=" + args[1], "spring.datasource.username=" + args[2],
					"spring.datasource.password=", "redeq.journal.enabled=true",
					"redeq.journal.initialize-schema=always", "redeq.consumer.enabled=false")
			.run();
		RedeqClient client = context.getBean(RedeqClient.class);
		new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult((status) -> {
			client.schedule(Job.builder("crash").id(args[3]).payload("from the dead").build());
			TransactionSynchronizationManager.registerSynchronization(new HangAfterCommit());
		});
		throw new IllegalStateException("unreachable: the transaction hangs after its commit");
	}

	/** Runs first among the synchronizations, before redeq's send. */
	static final class HangAfterCommit implements TransactionSynchronization {

		@Override
		public int getOrder() {
			return Ordered.HIGHEST_PRECEDENCE;
		}

		@Override
		public void afterCommit() {
			System.out.println(COMMITTED);
			System.out.flush();
			try {
				new CountDownLatch(1).await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
