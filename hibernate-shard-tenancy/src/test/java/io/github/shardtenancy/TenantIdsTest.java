package io.github.shardtenancy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Tenant ids")
class TenantIdsTest {

	/** 60 letters and digits and the four allowed punctuation characters: 64 characters. */
	private static final String ALLOWED_64 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567._:-";

	@ParameterizedTest(name = "[{index}] \"{0}\" is rejected")
	@NullAndEmptySource
	@ValueSource(strings = { "a b", " acme", "acme ", "a'b", "a\"b", "ten\u00e4nt", "\u79df\u6237", "acme\u0000",
			"acme\n", "a\tb", "x'; DROP TABLE note; --", "1 OR 1=1", "a/b", "a\\b", "a;b", "a%b", "a*b", "\u200bacme",
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-" })
	@DisplayName("invalid ids raise InvalidTenantIdException from every entry point")
	void invalidIdsAreRejected(String tenantId) {
		assertThat(TenantIds.isValid(tenantId)).isFalse();
		assertThatThrownBy(() -> TenantIds.requireValid(tenantId)).isInstanceOf(InvalidTenantIdException.class);
		assertThatThrownBy(() -> TenantContext.bind(tenantId)).isInstanceOf(InvalidTenantIdException.class);
		assertThat(TenantContext.current()).isNull();
	}

	@Test
	@DisplayName("65 characters are one too many, and the message says so without echoing control characters")
	void sixtyFiveCharactersAreTooMany() {
		String tooLong = ALLOWED_64 + "x";
		assertThat(tooLong).hasSize(65);
		assertThatThrownBy(() -> TenantIds.requireValid(tooLong)).isInstanceOf(InvalidTenantIdException.class)
			.hasMessageContaining("65 characters, at most 64");
		assertThatThrownBy(() -> TenantIds.requireValid("evil\nlog line")).hasMessageNotContaining("\n")
			.hasMessageContaining("\\u000a");
	}

	@Test
	@DisplayName("64 characters of the allowed set are accepted")
	void sixtyFourAllowedCharactersAreAccepted() {
		String id = ALLOWED_64;
		assertThat(id).hasSize(64);
		assertThat(TenantIds.requireValid(id)).isEqualTo(id);
		assertThat(TenantIds.isValid(id)).isTrue();
		try (TenantContext.Scope scope = TenantContext.bind(id)) {
			assertThat(TenantContext.current()).isEqualTo(id);
		}
		assertThat(TenantContext.current()).isNull();
	}

	@ParameterizedTest(name = "[{index}] \"{0}\" is accepted")
	@ValueSource(strings = { "a", "Z", "7", "acme", "acme-corp", "acme_corp", "acme.corp", "org:acme", "..", "-" })
	@DisplayName("short ids of letters, digits and . _ : - are accepted")
	void shortValidIdsAreAccepted(String tenantId) {
		assertThat(TenantIds.requireValid(tenantId)).isEqualTo(tenantId);
	}

	@Test
	@DisplayName("scopes nest and closing one restores the tenant bound before it")
	void scopesNest() throws Exception {
		try (TenantContext.Scope outer = TenantContext.bind("outer")) {
			String inner = TenantContext.callAs("inner", TenantContext::current);
			assertThat(inner).isEqualTo("inner");
			assertThat(TenantContext.current()).isEqualTo("outer");
		}
		assertThat(TenantContext.current()).isNull();
		assertThatThrownBy(() -> TenantContext.require("a test")).isInstanceOf(NoTenantBoundException.class)
			.hasMessageContaining("a test");
	}

}
