package io.github.shardtenancy.it.architecture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What is published, read from the build's own POM files: the BOM manages exactly the published modules (those that
 * do not set {@code maven.deploy.skip}) at the build's version and brings nothing else, the POM metadata a
 * repository requires is there, the starter holds no code, and the licence is at the root.
 */
@DisplayName("Published artifacts")
class BomTests {

	private static final String GROUP_ID = "io.github.shardtenancy";

	private static Path root;

	private static Element rootPom;

	/** Every module of the reactor, by directory. */
	private static final Map<String, Element> modules = new LinkedHashMap<>();

	@BeforeAll
	static void readPoms() throws Exception {
		root = RepositoryRoot.find();
		rootPom = parse(root.resolve("pom.xml"));
		for (Element module : children(child(rootPom, "modules"), "module")) {
			modules.put(module.getTextContent().trim(), parse(root.resolve(module.getTextContent().trim())
				.resolve("pom.xml")));
		}
		assertThat(modules).containsKeys("bom", "spring-boot-starter", "spring-autoconfigure", "sample-app");
	}

	@Test
	@DisplayName("the BOM manages every published module and only those, at the build's version")
	void bomListsThePublishedModules() {
		String version = text(rootPom, "version");
		TreeSet<String> published = new TreeSet<>();
		TreeSet<String> unpublished = new TreeSet<>();
		modules.forEach((directory, pom) -> {
			if (directory.equals("bom")) {
				return;
			}
			(isPublished(pom) ? published : unpublished).add(text(pom, "artifactId"));
		});
		Element bom = modules.get("bom");
		TreeSet<String> managed = new TreeSet<>();
		for (Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
			assertThat(text(dependency, "groupId")).isEqualTo(GROUP_ID);
			assertThat(text(dependency, "version")).as(text(dependency, "artifactId")).isEqualTo(version);
			managed.add(text(dependency, "artifactId"));
		}
		assertThat(managed).isEqualTo(published);
		assertThat(unpublished).contains("hibernate-shard-tenancy-sample-app", "hibernate-shard-tenancy-it",
				"hibernate-shard-tenancy-test-fixtures", "hibernate-shard-tenancy-benchmarks");
		assertThat(published).contains("hibernate-shard-tenancy", "hibernate-shard-tenancy-spring-boot",
				"hibernate-shard-tenancy-spring-boot-starter");
	}

	@Test
	@DisplayName("the BOM has no parent and brings none of this build's configuration")
	void bomBringsNothingElse() {
		Element bom = modules.get("bom");
		assertThat(child(bom, "parent")).isNull();
		assertThat(text(bom, "groupId")).isEqualTo(GROUP_ID);
		assertThat(text(bom, "version")).isEqualTo(text(rootPom, "version"));
		assertThat(text(bom, "packaging")).isEqualTo("pom");
		assertThat(child(bom, "dependencies")).isNull();
		assertThat(child(bom, "build")).isNull();
		assertThat(child(bom, "profiles")).isNull();
		assertThat(child(bom, "repositories")).isNull();
		Element properties = child(bom, "properties");
		if (properties != null) {
			assertThat(children(properties, null)).extracting(Element::getTagName)
				.containsOnly("project.build.outputTimestamp");
		}
	}

	@Test
	@DisplayName("the parent POM and the BOM carry the metadata a public repository requires")
	void metadata() {
		for (Element pom : List.of(rootPom, modules.get("bom"))) {
			for (String element : List.of("name", "description", "url")) {
				assertThat(text(pom, element)).as(element).isNotBlank();
			}
			assertThat(text(child(child(pom, "licenses"), "license"), "name")).isEqualTo("Apache License, Version 2.0");
			assertThat(text(child(pom, "scm"), "connection")).startsWith("scm:git:");
			assertThat(text(child(pom, "scm"), "url")).isEqualTo(text(pom, "url"));
			assertThat(child(child(pom, "developers"), "developer")).isNotNull();
			assertThat(text(child(pom, "issueManagement"), "url")).startsWith(text(pom, "url"));
			assertThat(text(child(pom, "organization"), "name")).isNotBlank();
		}
		// every published module names and describes itself; the rest is inherited as it is
		modules.forEach((directory, pom) -> {
			if (isPublished(pom)) {
				assertThat(text(pom, "name")).as(directory + " name").isNotBlank();
				assertThat(text(pom, "description")).as(directory + " description").isNotBlank();
			}
		});
		assertThat(rootPom.getAttribute("child.project.url.inherit.append.path")).isEqualTo("false");
		assertThat(text(child(rootPom, "properties"), "project.build.outputTimestamp")).isNotBlank();
	}

	@Test
	@DisplayName("the starter is a dependency list without code, on the auto-configuration and without a JDBC driver")
	void starterHasNoCode() {
		assertThat(root.resolve("spring-boot-starter/src/main/java")).doesNotExist();
		List<String> dependencies = new ArrayList<>();
		for (Element dependency : children(child(modules.get("spring-boot-starter"), "dependencies"), "dependency")) {
			dependencies.add(text(dependency, "groupId") + ":" + text(dependency, "artifactId"));
		}
		assertThat(dependencies).contains(GROUP_ID + ":hibernate-shard-tenancy-spring-boot",
				"org.springframework.boot:spring-boot-starter");
		assertThat(dependencies).doesNotContain("org.postgresql:postgresql", "com.h2database:h2");
	}

	@Test
	@DisplayName("the core jar's manifest gives the build's version, which an instance reports as its library version")
	void manifestVersion() {
		String version = io.github.shardtenancy.ShardTenancy.class.getPackage().getImplementationVersion();
		String location = io.github.shardtenancy.ShardTenancy.class.getProtectionDomain().getCodeSource().getLocation()
			.toString();
		// From the packaged jar (the reactor's or the local repository's); a class directory has no manifest.
		org.junit.jupiter.api.Assumptions.assumeTrue(location.endsWith(".jar"), "core classes from " + location);
		assertThat(version).isEqualTo(text(rootPom, "version"));
	}

	@Test
	@DisplayName("the Apache License 2.0 is at the root, with a changelog")
	void licence() throws IOException {
		String licence = Files.readString(root.resolve("LICENSE"));
		assertThat(licence).contains("Apache License").contains("Version 2.0, January 2004")
			.contains("END OF TERMS AND CONDITIONS");
		assertThat(Files.readString(root.resolve("CHANGELOG.md"))).contains("## [Unreleased]");
	}

	private static boolean isPublished(Element pom) {
		Element properties = child(pom, "properties");
		return properties == null || !"true".equals(text(properties, "maven.deploy.skip"));
	}

	private static Element parse(Path pom) throws Exception {
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
		Document document = factory.newDocumentBuilder().parse(pom.toFile());
		return document.getDocumentElement();
	}

	/** @return the first child element named so, or {@code null} */
	private static Element child(Element parent, String name) {
		List<Element> found = children(parent, name);
		return found.isEmpty() ? null : found.get(0);
	}

	/** @return the child elements named so (every child element if name is {@code null}) */
	private static List<Element> children(Element parent, String name) {
		List<Element> found = new ArrayList<>();
		if (parent == null) {
			return found;
		}
		NodeList nodes = parent.getChildNodes();
		for (int i = 0; i < nodes.getLength(); i++) {
			Node node = nodes.item(i);
			if (node instanceof Element element && (name == null || element.getTagName().equals(name))) {
				found.add(element);
			}
		}
		return found;
	}

	/** @return the trimmed text of the child element, or {@code null} if there is none */
	private static String text(Element parent, String name) {
		Element element = child(parent, name);
		return (element != null) ? element.getTextContent().trim() : null;
	}

}
