package io.redeq.test;

/**
 * Thrown when a test needs a database server whose binaries are not installed. The
 * message names the Debian package and the command that installs it.
 */
public class DatabaseNotAvailableException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	public DatabaseNotAvailableException(String message) {
		super(message);
	}

}
