package io.redeq.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A tiny one-shot RESP client: opens a socket, sends one command, reads one reply,
 * closes.
 *
 * <p>
 * Why not Lettuce: readiness probes run many times per second while a server starts, and
 * a Lettuce client brings a Netty event loop and reconnect logic with it. A plain socket
 * keeps start-up fast and the probe's failures easy to read. Only the reply types the
 * helpers need (simple string, error, integer, bulk string) are understood.
 */
final class RespClient {

	private RespClient() {
	}

	/**
	 * Sends {@code args} as one command and returns the reply as text.
	 * @throws IOException if the connection fails, times out, or Redis answers with an
	 * error
	 */
	static String call(String host, int port, Duration timeout, String... args) throws IOException {
		try (Socket socket = new Socket()) {
			int millis = (int) timeout.toMillis();
			socket.connect(new InetSocketAddress(host, port), millis);
			socket.setSoTimeout(millis);
			OutputStream out = socket.getOutputStream();
			out.write(encode(args));
			out.flush();
			return readReply(new BufferedInputStream(socket.getInputStream()));
		}
	}

	private static byte[] encode(String... args) {
		StringBuilder command = new StringBuilder("*").append(args.length).append("\r\n");
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			command.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
		}
		return command.toString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Sends {@code args} as one command whose reply is an array of bulk strings (such as
	 * {@code CLUSTER GETKEYSINSLOT}) and returns its elements.
	 * @throws IOException if the connection fails, times out, or Redis answers with an
	 * error
	 */
	static List<String> callForList(String host, int port, Duration timeout, String... args) throws IOException {
		try (Socket socket = new Socket()) {
			int millis = (int) timeout.toMillis();
			socket.connect(new InetSocketAddress(host, port), millis);
			socket.setSoTimeout(millis);
			OutputStream out = socket.getOutputStream();
			out.write(encode(args));
			out.flush();
			InputStream in = new BufferedInputStream(socket.getInputStream());
			int type = in.read();
			String line = readLine(in);
			if (type == '-') {
				throw new IOException("Redis replied with an error: " + line);
			}
			if (type != '*') {
				throw new IOException("Expected an array reply but got '" + (char) type + "': " + line);
			}
			int count = Integer.parseInt(line);
			List<String> elements = new ArrayList<>(Math.max(count, 0));
			for (int i = 0; i < count; i++) {
				elements.add(readReply(in));
			}
			return elements;
		}
	}

	private static String readReply(InputStream in) throws IOException {
		int type = in.read();
		String line = readLine(in);
		switch (type) {
			case '+':
			case ':':
				return line;
			case '-':
				throw new IOException("Redis replied with an error: " + line);
			case '$':
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				// The payload plus its trailing CRLF.
				byte[] body = in.readNBytes(length + 2);
				if (body.length < length + 2) {
					throw new IOException("Connection closed in the middle of a reply");
				}
				return new String(body, 0, length, StandardCharsets.UTF_8);
			case -1:
				throw new IOException("Connection closed before a reply");
			default:
				throw new IOException("Unsupported RESP reply type '" + (char) type + "': " + line);
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		for (int b = in.read(); b != -1; b = in.read()) {
			if (previous == '\r' && b == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(b);
			previous = b;
		}
		return line.toString(StandardCharsets.UTF_8);
	}

}
