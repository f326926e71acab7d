package io.github.shardtenancy.flyway;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.xml.parsers.DocumentBuilderFactory;

import org.jspecify.annotations.Nullable;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Reads change sets of the library's Liquibase changelogs (hibernate-shard-tenancy-liquibase) as SQL statements, so
 * that Flyway installs exactly the schema the changelogs define, from the one source: the XML of the changelogs and
 * the SQL files they name. Understands the change types those changelogs use ({@code sql}, {@code sqlFile},
 * {@code createTable}, {@code createIndex}, {@code insert}) with the attributes they use, and refuses anything else, so
 * that a change set the Flyway side cannot reproduce fails its tests instead of being skipped
 * (https://docs.liquibase.com/change-types/home.html describes the change types). Stateless and thread-safe.
 */
final class ChangeSets {

	/** The class-path folder of the library's changelogs. */
	static final String FOLDER = "db/shard-tenancy/";

	private ChangeSets() {
	}

	/**
	 * @param changelog the changelog's file name in {@link #FOLDER}, e.g. {@code shard.xml}
	 * @param id the change set's id
	 * @param database the database product as Liquibase names it in {@code dbms}: {@code h2} or {@code postgresql}
	 * @return the statements of the change set for that database, in order; empty when the change set is for other
	 * databases only
	 * @throws IllegalStateException if the changelog or the change set is missing, or the change set uses a change
	 * type or attribute this reader does not reproduce
	 */
	static List<String> statements(String changelog, String id, String database) {
		Element changeSet = changeSet(changelog, id);
		String dbms = changeSet.getAttribute("dbms");
		if (!dbms.isEmpty() && !List.of(dbms.toLowerCase(Locale.ROOT).split("\\s*,\\s*")).contains(database)) {
			return List.of();
		}
		List<String> statements = new ArrayList<>();
		for (Element change : children(changeSet)) {
			switch (change.getTagName()) {
				case "comment" -> {
				}
				case "sql" -> statements.add(sql(change, change.getTextContent(), changelog, id));
				case "sqlFile" -> statements.add(sql(change, sqlFile(change, changelog, id), changelog, id));
				case "createTable" -> statements.add(createTable(change, changelog, id));
				case "createIndex" -> statements.add(createIndex(change));
				case "insert" -> statements.add(insert(change, changelog, id));
				default -> throw unsupported(changelog, id, "change type <" + change.getTagName() + ">");
			}
		}
		return statements;
	}

	/**
	 * @return the change set's text and that of the files it names: changes whenever what the change set runs changes
	 * @throws IllegalStateException if the changelog, the change set or a file it names is missing
	 */
	static String source(String changelog, String id) {
		Element changeSet = changeSet(changelog, id);
		StringBuilder source = new StringBuilder(changeSet.getTextContent());
		for (Element change : children(changeSet)) {
			source.append('\n').append(change.getTagName());
			var attributes = change.getAttributes();
			for (int i = 0; i < attributes.getLength(); i++) {
				source.append(' ').append(attributes.item(i));
			}
			appendColumns(source, change);
			if (change.getTagName().equals("sqlFile")) {
				source.append('\n').append(sqlFile(change, changelog, id));
			}
		}
		// line ends as checked out (CRLF on some systems) do not change what runs
		return source.toString().replace("\r\n", "\n");
	}

	private static void appendColumns(StringBuilder source, Element element) {
		for (Element child : children(element)) {
			source.append("\n ").append(child.getTagName());
			var attributes = child.getAttributes();
			for (int i = 0; i < attributes.getLength(); i++) {
				source.append(' ').append(attributes.item(i));
			}
			appendColumns(source, child);
		}
	}

	private static Element changeSet(String changelog, String id) {
		Document document = parse(FOLDER + changelog);
		for (Element changeSet : children(document.getDocumentElement())) {
			if (changeSet.getTagName().equals("changeSet") && changeSet.getAttribute("id").equals(id)) {
				return changeSet;
			}
		}
		throw new IllegalStateException("No change set '" + id + "' in " + FOLDER + changelog);
	}

	/** @return the change set ids of a changelog, in order (its includes not followed) */
	static List<String> ids(String changelog) {
		return attributes(changelog, "changeSet", "id");
	}

	/** @return the files a changelog includes, relative to {@link #FOLDER}, in order */
	static List<String> includes(String changelog) {
		return attributes(changelog, "include", "file");
	}

	private static List<String> attributes(String changelog, String tag, String attribute) {
		List<String> values = new ArrayList<>();
		for (Element element : children(parse(FOLDER + changelog).getDocumentElement())) {
			if (element.getTagName().equals(tag)) {
				values.add(element.getAttribute(attribute));
			}
		}
		return values;
	}

	private static Document parse(String resource) {
		try (InputStream in = open(resource)) {
			DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
			factory.setNamespaceAware(false);
			factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
			return factory.newDocumentBuilder().parse(in);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read " + resource + ": " + ex.getMessage(), ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot parse " + resource + ": " + ex.getMessage(), ex);
		}
	}

	private static InputStream open(String resource) {
		ClassLoader loader = ChangeSets.class.getClassLoader();
		InputStream in = loader.getResourceAsStream(resource);
		if (in == null) {
			throw new IllegalStateException("No class-path resource " + resource
					+ ": is hibernate-shard-tenancy-liquibase on the class path?");
		}
		return in;
	}

	private static String sqlFile(Element change, String changelog, String id) {
		if (!"true".equals(change.getAttribute("relativeToChangelogFile"))) {
			throw unsupported(changelog, id, "a <sqlFile> not relative to its changelog");
		}
		String resource = FOLDER + change.getAttribute("path");
		try (InputStream in = open(resource)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read " + resource + ": " + ex.getMessage(), ex);
		}
	}

	/** One statement: a text Liquibase would split on its semicolons (splitStatements) is not supported. */
	private static String sql(Element change, String text, String changelog, String id) {
		String statement = text.strip();
		if (statement.endsWith(";")) {
			statement = statement.substring(0, statement.length() - 1).strip();
		}
		if (!"false".equals(change.getAttribute("splitStatements")) && statement.contains(";")) {
			throw unsupported(changelog, id, "a <" + change.getTagName() + "> of several statements");
		}
		return statement;
	}

	private static String createTable(Element change, String changelog, String id) {
		StringBuilder sql = new StringBuilder("CREATE TABLE ").append(change.getAttribute("tableName")).append(" (");
		List<String> primaryKey = new ArrayList<>();
		String separator = "";
		for (Element column : children(change)) {
			sql.append(separator).append(column.getAttribute("name")).append(' ').append(column.getAttribute("type"));
			separator = ", ";
			if ("true".equals(column.getAttribute("autoIncrement"))) {
				sql.append(" GENERATED BY DEFAULT AS IDENTITY");
			}
			for (Element constraints : children(column)) {
				if ("false".equals(constraints.getAttribute("nullable"))) {
					sql.append(" NOT NULL");
				}
				if ("true".equals(constraints.getAttribute("primaryKey"))) {
					primaryKey.add(column.getAttribute("name"));
				}
				for (String attribute : List.of("unique", "foreignKeyName", "references", "checkConstraint",
						"primaryKeyName")) {
					if (constraints.hasAttribute(attribute)) {
						throw unsupported(changelog, id, "the constraint attribute " + attribute);
					}
				}
			}
		}
		if (!primaryKey.isEmpty()) {
			sql.append(", PRIMARY KEY (").append(String.join(", ", primaryKey)).append(')');
		}
		return sql.append(')').toString();
	}

	private static String createIndex(Element change) {
		List<String> columns = children(change).stream().map((column) -> column.getAttribute("name")).toList();
		return "CREATE " + ("true".equals(change.getAttribute("unique")) ? "UNIQUE " : "") + "INDEX "
				+ change.getAttribute("indexName") + " ON " + change.getAttribute("tableName") + " ("
				+ String.join(", ", columns) + ")";
	}

	private static String insert(Element change, String changelog, String id) {
		List<String> names = new ArrayList<>();
		List<String> values = new ArrayList<>();
		for (Element column : children(change)) {
			names.add(column.getAttribute("name"));
			values.add(value(column, changelog, id));
		}
		return "INSERT INTO " + change.getAttribute("tableName") + " (" + String.join(", ", names) + ") VALUES ("
				+ String.join(", ", values) + ")";
	}

	private static String value(Element column, String changelog, String id) {
		if (column.hasAttribute("valueNumeric")) {
			String number = column.getAttribute("valueNumeric");
			if (!number.matches("-?[0-9]+(\\.[0-9]+)?")) {
				throw unsupported(changelog, id, "the valueNumeric " + number);
			}
			return number;
		}
		if (column.hasAttribute("valueComputed")) {
			return column.getAttribute("valueComputed");
		}
		if (column.hasAttribute("value")) {
			return "'" + column.getAttribute("value").replace("'", "''") + "'";
		}
		throw unsupported(changelog, id, "an insert column without valueNumeric, valueComputed or value");
	}

	private static List<Element> children(@Nullable Node parent) {
		List<Element> elements = new ArrayList<>();
		if (parent == null) {
			return elements;
		}
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element) {
				elements.add(element);
			}
		}
		return elements;
	}

	private static IllegalStateException unsupported(String changelog, String id, String what) {
		return new IllegalStateException("Change set '" + id + "' of " + FOLDER + changelog + " uses " + what
				+ ", which the Flyway migrations do not reproduce: map it in ChangeSets");
	}

}
