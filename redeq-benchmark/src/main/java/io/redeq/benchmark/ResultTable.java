package io.redeq.benchmark;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * The figures of one run, a row per figure and a column per system, printed at the end as
 * a markdown table with redeq's ratio to each peer (redeq's figure divided by the peer's;
 * whether above 1 is good depends on the row, which says).
 */
final class ResultTable {

	static final List<String> COLUMNS = List.of(TextbookContender.NAME, RedissonContender.NAME, RedeqContender.NAME);

	private final Map<String, Map<String, Cell>> rows = new LinkedHashMap<>();

	/** Rows whose ratios divide by the peers' figures of another row. */
	private final Map<String, String> referenceRows = new HashMap<>();

	/** A figure; {@code text} is what the cell shows, {@code value} what ratios use. */
	void put(String row, String system, double value, String text) {
		this.rows.computeIfAbsent(row, (r) -> new TreeMap<>()).put(system, new Cell(value, text, true));
	}

	void put(String row, String system, double value, String format, Object... args) {
		put(row, system, value, String.format(Locale.ROOT, format, args));
	}

	/**
	 * A figure without a ratio (counts such as missing/dup); {@code value} is for
	 * {@link #value}.
	 */
	void count(String row, String system, double value, String text) {
		this.rows.computeIfAbsent(row, (r) -> new TreeMap<>()).put(system, new Cell(value, text, false));
	}

	/**
	 * Makes {@code row}'s ratios divide redeq's figure by the peers' figures of
	 * {@code reference}: for a row only redeq has, such as a floor beside the peers' W1
	 * single.
	 */
	void compareWith(String row, String reference) {
		this.referenceRows.put(row, reference);
	}

	@Nullable Double value(String row, String system) {
		Cell cell = this.rows.getOrDefault(row, Map.of()).get(system);
		return (cell != null && !Double.isNaN(cell.value)) ? cell.value : null;
	}

	boolean isEmpty() {
		return this.rows.isEmpty();
	}

	List<String> markdown() {
		List<String> lines = new ArrayList<>();
		lines.add("| workload | textbook | Redisson | redeq | redeq/textbook | redeq/Redisson |");
		lines.add("| --- | ---: | ---: | ---: | ---: | ---: |");
		this.rows.forEach((row, cells) -> {
			StringBuilder line = new StringBuilder("| ").append(row).append(" |");
			for (String system : COLUMNS) {
				Cell cell = cells.get(system);
				line.append(' ').append((cell != null) ? cell.text : "–").append(" |");
			}
			Cell redeq = cells.get(RedeqContender.NAME);
			Map<String, Cell> peers = this.rows.getOrDefault(this.referenceRows.getOrDefault(row, row), Map.of());
			line.append(' ').append(ratio(redeq, peers.get(TextbookContender.NAME))).append(" |");
			line.append(' ').append(ratio(redeq, peers.get(RedissonContender.NAME))).append(" |");
			lines.add(line.toString());
		});
		return lines;
	}

	private static String ratio(@Nullable Cell redeq, @Nullable Cell peer) {
		if (redeq == null || peer == null || !redeq.ratio || Double.isNaN(redeq.value) || Double.isNaN(peer.value)
				|| peer.value == 0) {
			return "–";
		}
		double ratio = redeq.value / peer.value;
		return String.format(Locale.ROOT, (ratio >= 10) ? "%.0f" : "%.2f", ratio);
	}

	private record Cell(double value, String text, boolean ratio) {
	}

}
