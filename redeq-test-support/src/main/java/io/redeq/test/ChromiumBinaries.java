package io.redeq.test;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Finds the browser and the WebDriver that browser tests drive: {@code chromium} on the
 * {@code PATH} or in {@code /usr/bin} (Debian's {@code chromium} package), else
 * Chromium's or Google Chrome's app bundle in {@code /Applications} (macOS);
 * {@code chromedriver} on the {@code PATH}, in {@code /usr/bin} (Debian's
 * {@code chromium-driver}) or in Homebrew's {@code bin}. Tests pass both paths to
 * Selenium, so it never looks for, or downloads, a browser itself.
 */
public final class ChromiumBinaries {

	/** The commands that install both. */
	public static final String INSTALL = "sudo apt-get install chromium chromium-driver (Debian/Ubuntu) "
			+ "or brew install google-chrome chromedriver (macOS)";

	private static final List<String> BROWSER_DIRS = List.of("usr/bin");

	private static final List<String> APP_BUNDLES = List.of("Applications/Chromium.app/Contents/MacOS/Chromium",
			"Applications/Google Chrome.app/Contents/MacOS/Google Chrome");

	private static final List<String> DRIVER_DIRS = List.of("usr/bin", ProgramLocations.HOMEBREW_BINS.get(0),
			ProgramLocations.HOMEBREW_BINS.get(1));

	private ChromiumBinaries() {
	}

	/**
	 * The browser, or an exception that says how to install it.
	 * @return the Chromium (or Chrome) executable
	 */
	public static Path requireBrowser() {
		return findBrowser(ProgramLocations.system())
			.orElseThrow(() -> new IllegalStateException("Chromium not found on PATH, in /usr/bin or "
					+ String.join(", ", APP_BUNDLES.stream().map((app) -> "/" + app).toList()) + "; install it: "
					+ INSTALL));
	}

	/**
	 * The WebDriver, or an exception that says how to install it.
	 * @return the chromedriver executable
	 */
	public static Path requireDriver() {
		return findDriver(ProgramLocations.system())
			.orElseThrow(() -> new IllegalStateException("chromedriver not found on PATH or in /"
					+ String.join(", /", DRIVER_DIRS) + "; install it: " + INSTALL));
	}

	static Optional<Path> findBrowser(ProgramLocations where) {
		Optional<Path> chromium = where.find("chromium", BROWSER_DIRS);
		if (chromium.isPresent()) {
			return chromium;
		}
		return APP_BUNDLES.stream().map(where::at).filter(ProgramLocations::isProgram).findFirst();
	}

	static Optional<Path> findDriver(ProgramLocations where) {
		return where.find("chromedriver", DRIVER_DIRS);
	}

}
