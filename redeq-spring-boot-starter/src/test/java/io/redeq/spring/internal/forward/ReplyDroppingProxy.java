package io.redeq.spring.internal.forward;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy between the application and a RabbitMQ node that can drop everything the
 * broker sends: publishes still reach the broker, which takes them, but their confirms
 * never come back, as when a connection dies after the broker received a message.
 * {@link #cutConnections()} then closes every proxied connection, so the client
 * reconnects.
 */
final class ReplyDroppingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int targetPort;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile boolean dropping;

	ReplyDroppingProxy(int targetPort) {
		this.targetPort = targetPort;
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "reply-dropping-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/** From now on, bytes from the broker are read and thrown away. */
	void dropBrokerReplies() {
		this.dropping = true;
	}

	/** Closes every proxied connection and forwards normally again. */
	void cutConnections() {
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
		this.sockets.clear();
		this.dropping = false;
	}

	@Override
	public void close() {
		cutConnections();
		closeQuietly(this.server);
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				Socket broker = new Socket(InetAddress.getLoopbackAddress(), this.targetPort);
				this.sockets.add(client);
				this.sockets.add(broker);
				pump(client, broker, false);
				pump(broker, client, true);
			}
			catch (IOException ex) {
				// closed, or the broker is down: the client sees its connection fail
			}
		}
	}

	private void pump(Socket from, Socket to, boolean fromBroker) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[8192];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
					if (!(fromBroker && this.dropping)) {
						out.write(buffer, 0, read);
						out.flush();
					}
				}
			}
			catch (IOException ex) {
				// the connection was cut
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, "reply-dropping-proxy-pump");
		thread.setDaemon(true);
		thread.start();
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// already closed
		}
	}

}
