package io.github.shardtenancy.benchmarks;

import java.util.List;
import java.util.Locale;

/** Formats figures as one Markdown table (readable as plain text too). Stateless. */
final class ResultsTable {

	private ResultsTable() {
	}

	static String format(List<Figure> figures) {
		String[] header = { "figure", "baseline", "ours", "ratio", "goal", "met?" };
		String[][] rows = new String[figures.size()][];
		int[] width = new int[header.length];
		for (int i = 0; i < header.length; i++) {
			width[i] = header[i].length();
		}
		for (int r = 0; r < figures.size(); r++) {
			Figure f = figures.get(r);
			rows[r] = new String[] { cell(f.name()), cell(f.baseline()), cell(f.ours()),
					Double.isFinite(f.ratio()) ? String.format(Locale.ROOT, "%.2f", f.ratio()) : "-", f.goal(),
					switch (f.met()) {
						case YES -> "yes";
						case NO -> "NO";
						case NOT_MEASURED, NO_GOAL -> "-";
					} };
			for (int i = 0; i < header.length; i++) {
				width[i] = Math.max(width[i], rows[r][i].length());
			}
		}
		StringBuilder out = new StringBuilder();
		appendRow(out, header, width);
		StringBuilder rule = new StringBuilder("|");
		for (int w : width) {
			rule.append('-').append("-".repeat(w)).append("-|");
		}
		out.append(rule).append('\n');
		for (String[] row : rows) {
			appendRow(out, row, width);
		}
		boolean notes = false;
		for (Figure f : figures) {
			if (!f.note().isEmpty()) {
				if (!notes) {
					out.append("\nNotes:\n");
					notes = true;
				}
				out.append("- ").append(cell(f.name())).append(": ").append(oneLine(f.note())).append('\n');
			}
		}
		return out.toString();
	}

	private static void appendRow(StringBuilder out, String[] cells, int[] width) {
		out.append('|');
		for (int i = 0; i < cells.length; i++) {
			out.append(' ').append(cells[i]).append(" ".repeat(width[i] - cells[i].length())).append(" |");
		}
		out.append('\n');
	}

	/** @return the text on one line, without Markdown table separators, at most 200 characters */
	static String cell(String text) {
		String line = oneLine(text).replace('|', '/');
		return line.length() <= 200 ? line : line.substring(0, 197) + "...";
	}

	private static String oneLine(String text) {
		return text.replaceAll("\\s+", " ").trim();
	}

	static String fmt(String pattern, Object... args) {
		return String.format(Locale.ROOT, pattern, args);
	}

}
