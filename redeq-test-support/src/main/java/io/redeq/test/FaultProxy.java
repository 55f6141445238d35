package io.redeq.test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisURI;

/**
 * A TCP proxy between a client and a Redis server that can lose one reply on purpose: the
 * command runs in Redis, its answer never reaches the client. That is what a connection
 * dropped after a command was sent does, made deterministic.
 *
 * <p>
 * It forwards both directions unchanged and counts commands and replies per connection
 * ({@link RespFrames}). {@link #loseReplyTo(String...)} arms it for the next command
 * whose request bytes contain every marker (a script's SHA, a job id): the replies before
 * that command's are forwarded, that reply is swallowed once it has arrived in full (so
 * the command has run), and the connection is cut on both sides. A Lettuce client then
 * reconnects through the proxy and replays the commands it had sent and not seen
 * answered. {@link #holdReplyTo(Duration, String...)} instead holds that reply, and every
 * later one, for a while before cutting, so the client's own timeout fires first. A fault
 * fires once; arm it again for another.
 *
 * <p>
 * Plain blocking sockets, two threads per connection; for tests only.
 *
 * <p>
 * One class because the proxy must follow RESP to know where one command's reply ends, so
 * the parser of request and reply frames lives beside the forwarding it arms.
 */
public final class FaultProxy implements AutoCloseable {

	private static final String LOOPBACK = "127.0.0.1";

	private final String targetHost;

	private final int targetPort;

	private final ServerSocket listener;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final AtomicReference<Fault> armed = new AtomicReference<>();

	private final AtomicInteger connections = new AtomicInteger();

	private volatile boolean closed;

	private FaultProxy(String targetHost, int targetPort) {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		try {
			this.listener = new ServerSocket();
			this.listener.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not open the fault proxy's port on " + LOOPBACK, ex);
		}
		Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-accept-" + port());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** Starts a proxy on a free loopback port that forwards to {@code server}. */
	public static FaultProxy to(RedisServer server) {
		return new FaultProxy(server.host(), server.port());
	}

	public int port() {
		return this.listener.getLocalPort();
	}

	/** Where clients connect to go through the proxy. */
	public RedisURI uri() {
		return RedisURI.create(LOOPBACK, port());
	}

	/** Client connections the proxy has accepted so far (a reconnect adds one). */
	public int connectionsAccepted() {
		return this.connections.get();
	}

	/**
	 * Swallows the reply to the next command whose request contains every marker, once
	 * Redis has sent it in full, and cuts that connection.
	 */
	public Fault loseReplyTo(String... markers) {
		return arm(new Fault(List.of(markers), Duration.ZERO));
	}

	/**
	 * Holds the reply to the next command whose request contains every marker (and all
	 * replies after it on that connection) for {@code hold}, then drops them and cuts the
	 * connection.
	 */
	public Fault holdReplyTo(Duration hold, String... markers) {
		return arm(new Fault(List.of(markers), hold));
	}

	private Fault arm(Fault fault) {
		if (fault.markers.isEmpty()) {
			throw new IllegalArgumentException("A fault needs at least one marker");
		}
		if (!this.armed.compareAndSet(null, fault)) {
			throw new IllegalStateException("A fault is armed already: " + this.armed.get());
		}
		return fault;
	}

	private void acceptLoop() {
		while (!this.closed) {
			try {
				Socket client = this.listener.accept();
				Socket server = new Socket();
				try {
					server.connect(new InetSocketAddress(this.targetHost, this.targetPort), 5000);
				}
				catch (IOException ex) {
					client.close(); // the client sees what it would see without the proxy
					server.close();
					continue;
				}
				this.connections.incrementAndGet();
				Link link = new Link(client, server);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				if (!this.closed) {
					throw new UncheckedIOException("Fault proxy stopped accepting", ex);
				}
			}
		}
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.listener.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		for (Link link : this.links) {
			link.cut();
		}
	}

	@Override
	public String toString() {
		return "FaultProxy[" + LOOPBACK + ":" + port() + " -> " + this.targetHost + ":" + this.targetPort + "]";
	}

	/** One armed fault: which command, what to do, and whether it happened. */
	public static final class Fault {

		private final List<String> markers;

		private final Duration hold;

		private final CountDownLatch matched = new CountDownLatch(1);

		private final CountDownLatch done = new CountDownLatch(1);

		private volatile String command = "";

		private Fault(List<String> markers, Duration hold) {
			this.markers = markers;
			this.hold = hold;
		}

		private boolean matches(String request) {
			for (String marker : this.markers) {
				if (!request.contains(marker)) {
					return false;
				}
			}
			return true;
		}

		/** Whether a command matched and was sent on to Redis. */
		public boolean matched() {
			return this.matched.getCount() == 0;
		}

		/**
		 * Whether its reply has arrived and been dropped and its connection cut: the
		 * command ran in Redis and the client never saw the answer.
		 */
		public boolean happened() {
			return this.done.getCount() == 0;
		}

		/** Waits up to {@code timeout} for {@link #happened()}. */
		public boolean awaitHappened(Duration timeout) throws InterruptedException {
			return this.done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}

		/** The request that matched, as text (binary bytes as ISO-8859-1). */
		public String command() {
			return this.command;
		}

		@Override
		public String toString() {
			return "Fault[markers=" + this.markers + ", hold=" + this.hold + ", matched=" + matched() + ", happened="
					+ happened() + "]";
		}

	}

	/** A client connection and its own connection to Redis. */
	private final class Link {

		private final Socket client;

		private final Socket server;

		/** Commands sent to Redis on this link so far. */
		private long commandsSent;

		/** The index of the command whose reply is to be lost, or -1. */
		private volatile long doomed = -1;

		private volatile Fault fault;

		Link(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		void start() {
			Thread requests = new Thread(this::pumpRequests, "fault-proxy-requests-" + this.client.getPort());
			Thread replies = new Thread(this::pumpReplies, "fault-proxy-replies-" + this.client.getPort());
			requests.setDaemon(true);
			replies.setDaemon(true);
			requests.start();
			replies.start();
		}

		/**
		 * Client to Redis. The marker is checked when a command is complete and before
		 * the bytes that complete it are forwarded, so its reply cannot arrive unmarked.
		 */
		private void pumpRequests() {
			RespFrames frames = new RespFrames();
			ByteArrayOutputStream current = new ByteArrayOutputStream();
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = this.client.getInputStream(); OutputStream out = this.server.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) != -1) {
					for (int i = 0; i < read; i++) {
						current.write(buffer[i]);
						if (frames.next(buffer[i] & 0xff) != RespFrames.Step.INSIDE) {
							commandEnded(current.toString(StandardCharsets.ISO_8859_1));
							current.reset();
						}
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | RuntimeException ex) {
				// the link is cut or broken; both sides close below
			}
			finally {
				cut();
			}
		}

		private void commandEnded(String request) {
			long index = this.commandsSent++;
			Fault candidate = FaultProxy.this.armed.get();
			if (this.doomed < 0 && candidate != null && candidate.matches(request)
					&& FaultProxy.this.armed.compareAndSet(candidate, null)) {
				candidate.command = request;
				this.fault = candidate;
				this.doomed = index;
				candidate.matched.countDown();
			}
		}

		/** Redis to client: forwards replies up to the doomed one. */
		private void pumpReplies() {
			RespFrames frames = new RespFrames();
			long repliesSeen = 0;
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = this.server.getInputStream(); OutputStream out = this.client.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) != -1) {
					int forward = read;
					for (int i = 0; i < read; i++) {
						boolean doomedReply = this.doomed >= 0 && repliesSeen == this.doomed;
						if (doomedReply && forward == read) {
							forward = i; // this reply and everything after it stay here
						}
						RespFrames.Step step = frames.next(buffer[i] & 0xff);
						if (step == RespFrames.Step.VALUE) {
							repliesSeen++;
							if (doomedReply) {
								out.write(buffer, 0, forward);
								out.flush();
								fail();
								return;
							}
						}
					}
					out.write(buffer, 0, forward);
					out.flush();
				}
			}
			catch (IOException | RuntimeException ex) {
				// the link is cut or broken; both sides close below
			}
			finally {
				cut();
			}
		}

		/** The doomed reply has arrived in full: hold it if asked, then cut. */
		private void fail() {
			Fault failing = this.fault;
			try {
				if (!failing.hold.isZero()) {
					Thread.sleep(failing.hold.toMillis());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				cut();
				failing.done.countDown();
			}
		}

		void cut() {
			closeQuietly(this.client);
			closeQuietly(this.server);
			FaultProxy.this.links.remove(this);
		}

		private static void closeQuietly(Socket socket) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// already closed
			}
		}

	}

}
