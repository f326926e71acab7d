package io.github.shardtenancy.boot;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import liquibase.util.LiquibaseUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check of the Liquibase version on the class path, run before the migrations. The changelogs are
 * written and tested against the 4.33 line, the last one under the Apache License 2.0: Liquibase 5 is under the
 * Functional Source License (https://www.liquibase.com/blog/liquibase-community-for-the-future-fsl), and Spring Boot
 * 4.1 manages Liquibase 5, so an application that does not pin {@code liquibase.version} gets it. A version outside
 * {@value #SUPPORTED} fails the start with a {@link ShardTenancyConfigurationException} for the setting
 * {@value #SETTING}, naming the version found, the supported range and the remedy (explained by
 * {@link ShardTenancyFailureAnalyzer}). A version that cannot be read (a development build of Liquibase) is logged
 * as a warning and allowed. Stateless.
 */
final class LiquibaseVersionCheck {

	/** The build property that selects the Liquibase version (Maven; Gradle: {@code ext['liquibase.version']}). */
	static final String SETTING = "liquibase.version";

	/** The supported versions, as the message states them. */
	static final String SUPPORTED = "4.33.0 up to, not including, 5.0.0";

	/** The version the build uses and the remedy names. */
	static final String RECOMMENDED = "4.33.0";

	private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+).*");

	private static final Logger log = LoggerFactory.getLogger(LiquibaseVersionCheck.class);

	private LiquibaseVersionCheck() {
	}

	/** Checks the Liquibase found on the class path: {@link #check(String)} with its build version. */
	static void checkClassPath() {
		check(LiquibaseUtil.getBuildVersion());
	}

	/**
	 * @param found the Liquibase version, e.g. {@code 4.33.0}, as {@link LiquibaseUtil#getBuildVersion()} reports it;
	 * may be {@code null}
	 * @throws ShardTenancyConfigurationException if the version is below 4.33.0 or 5.0.0 or above
	 */
	static void check(String found) {
		Matcher matcher = (found != null) ? VERSION.matcher(found.trim()) : null;
		if (matcher == null || !matcher.matches()) {
			log.warn("The Liquibase version on the class path could not be read ('{}'); shard tenancy supports Liquibase "
					+ "{}: set the build property {} to {} if the migrations fail", found, SUPPORTED, SETTING,
					RECOMMENDED);
			return;
		}
		int major = Integer.parseInt(matcher.group(1));
		int minor = Integer.parseInt(matcher.group(2));
		if (major == 4 && minor >= 33) {
			return;
		}
		String reason = (major >= 5) ? "Liquibase 5 and later are not under an open-source licence, and the library's "
				+ "changelogs are not tested with them" : "the library's changelogs need Liquibase 4.33";
		throw new ShardTenancyConfigurationException(SETTING, "Liquibase " + found + " is on the class path, but shard "
				+ "tenancy supports Liquibase " + SUPPORTED + " (" + reason + "). Set the build property " + SETTING
				+ " to " + RECOMMENDED + " (Maven: <" + SETTING + ">" + RECOMMENDED + "</" + SETTING
				+ "> in <properties>; Gradle: ext['" + SETTING + "'] = '" + RECOMMENDED + "'), or set "
				+ "shard-tenancy.liquibase.enabled=false to run the migrations yourself.");
	}

}
