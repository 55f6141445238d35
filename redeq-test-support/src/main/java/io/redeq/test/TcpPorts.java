package io.redeq.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Free-port lookup and port probes on the loopback interface.
 *
 * <p>
 * Tests never use a fixed port: the machine may already run its own Redis on 6379, and
 * test JVMs may run side by side. The OS hands out a free ephemeral port when a socket
 * binds to port 0; closing it again leaves a tiny race, which {@link RedisServer} covers
 * by retrying once on another port.
 */
public final class TcpPorts {

	private static final String LOOPBACK = "127.0.0.1";

	private TcpPorts() {
	}

	/** Returns a TCP port on 127.0.0.1 that was free a moment ago. */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket()) {
			// No SO_REUSEADDR: a port in TIME_WAIT could be handed out and then
			// fail to bind.
			socket.setReuseAddress(false);
			socket.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0));
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free port on " + LOOPBACK, ex);
		}
	}

	/** Whether something accepts TCP connections on {@code host:port} right now. */
	public static boolean isOpen(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
