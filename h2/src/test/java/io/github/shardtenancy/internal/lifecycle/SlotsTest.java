package io.github.shardtenancy.internal.lifecycle;

import io.github.shardtenancy.SlotMoveResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.PlacementException;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.internal.placement.SlotMap;
import io.github.shardtenancy.spi.SlotPlacement;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Fixed slots with overrides")
class SlotsTest {

	private static LifecycleFixture slotted(String name) {
		LifecycleFixture f = new LifecycleFixture(name, 3, Map.of(), new SlotPlacement());
		f.slots.initialize(SlotMap.DEFAULT_SLOT_COUNT, List.of("shard-1", "shard-2", "shard-3"), "test@slots");
		return f;
	}

	@Test
	void tenantsAreRoutedToTheShardOfTheirSlot() {
		try (LifecycleFixture f = slotted("slots-route")) {
			assertThat(f.slots.slotCount()).isEqualTo(4096);
			for (int i = 0; i < 9; i++) {
				String tenant = "t" + i;
				int slot = SlotMap.slotOf(tenant, 4096);
				String expected = "shard-" + (slot % 3 + 1); // initialised round-robin
				assertThat(f.slots.shardFor(tenant)).isEqualTo(expected);
				assertThat(f.lifecycle.create(tenant).shardId()).as(tenant).isEqualTo(expected);
				f.insertNote(tenant, "routed by slot");
				for (String shard : List.of("shard-1", "shard-2", "shard-3")) {
					assertThat(f.rows(shard, tenant)).as(tenant + " on " + shard).isEqualTo(shard.equals(expected) ? 1 : 0);
				}
			}
		}
	}

	@Test
	void anOverrideWinsOverTheSlot() {
		try (LifecycleFixture f = slotted("slots-override")) {
			String whale = tenantInSlotOf("shard-1", f.slots, 0);
			assertThat(f.slots.shardFor(whale)).isEqualTo("shard-1");
			assertThat(f.lifecycle.override(whale, "shard-3")).as("nothing to move yet").isFalse();
			assertThat(f.slots.shardFor(whale)).isEqualTo("shard-3");
			assertThat(f.lifecycle.create(whale).shardId()).isEqualTo("shard-3");
			// an override also wins over an explicit request
			String other = tenantInSlotOf("shard-1", f.slots, 1);
			f.lifecycle.override(other, "shard-2");
			assertThat(f.lifecycle.create(other, PlacementRequest.onShard("shard-1")).shardId()).isEqualTo("shard-2");
			f.insertNote(whale, "isolated");
			assertThat(f.rows("shard-3", whale)).isEqualTo(1);
			assertThat(f.rows("shard-1", whale)).isZero();

			// overriding an existing tenant moves it, with its rows
			assertThat(f.lifecycle.override(whale, "shard-2")).isTrue();
			assertThat(f.core.directory().find(whale).orElseThrow().shardId()).isEqualTo("shard-2");
			assertThat(f.rows("shard-2", whale)).isEqualTo(1);
			assertThat(f.rows("shard-3", whale)).isZero();
			f.insertNote(whale, "after the override move");
			assertThat(f.rows("shard-2", whale)).isEqualTo(2);
		}
	}

	@Test
	void movingASlotMovesExactlyItsTenantsWithTheirDataAndLeavesPinnedAndOverriddenOnes() {
		try (LifecycleFixture f = slotted("slots-move")) {
			List<String> sameSlot = tenantsInOneSlot(4, 4096);
			int slot = SlotMap.slotOf(sameSlot.get(0), 4096);
			String source = f.slots.shardOfSlot(slot);
			String target = source.equals("shard-3") ? "shard-1" : "shard-3";
			List<String> neighbours = new ArrayList<>();
			for (int i = 0; neighbours.size() < 6; i++) {
				String t = "neighbour-" + i;
				if (SlotMap.slotOf(t, 4096) != slot) {
					neighbours.add(t);
				}
			}
			List<String> all = new ArrayList<>(sameSlot);
			all.addAll(neighbours);
			for (String tenant : all) {
				f.lifecycle.create(tenant);
				f.insertNote(tenant, "one");
				f.insertNote(tenant, "two");
			}
			String pinned = sameSlot.get(2);
			String overridden = sameSlot.get(3);
			f.lifecycle.pin(pinned);
			f.lifecycle.override(overridden, source); // already there: nothing moves
			Map<String, String> neighbourOwners = new java.util.HashMap<>();
			neighbours.forEach(t -> neighbourOwners.put(t, f.core.directory().find(t).orElseThrow().shardId()));

			SlotMoveResult result = f.lifecycle.moveSlot(slot, target);

			assertThat(result.fromShardId()).isEqualTo(source);
			assertThat(result.moved()).containsExactlyInAnyOrder(sameSlot.get(0), sameSlot.get(1));
			assertThat(result.pinned()).containsExactly(pinned);
			assertThat(result.overridden()).containsExactly(overridden);
			for (String moved : result.moved()) {
				assertThat(f.core.directory().find(moved).orElseThrow().shardId()).isEqualTo(target);
				assertThat(f.rows(target, moved)).as(moved + " rows on the target").isEqualTo(2);
				assertThat(f.rows(source, moved)).as(moved + " rows left on the source").isZero();
				f.insertNote(moved, "three");
				assertThat(f.rows(target, moved)).isEqualTo(3);
			}
			for (String stayed : List.of(pinned, overridden)) {
				assertThat(f.core.directory().find(stayed).orElseThrow().shardId()).isEqualTo(source);
				assertThat(f.rows(source, stayed)).isEqualTo(2);
			}
			neighbours.forEach(t -> {
				assertThat(f.core.directory().find(t).orElseThrow().shardId()).as(t).isEqualTo(neighbourOwners.get(t));
				assertThat(f.rows(neighbourOwners.get(t), t)).isEqualTo(2);
			});
			assertThat(f.slots.shardOfSlot(slot)).isEqualTo(target);
			// a tenant created in that slot from now on lands on the target
			String late = tenantsInOneSlot(1, 4096, slot, "late-").get(0);
			assertThat(f.lifecycle.create(late).shardId()).isEqualTo(target);
		}
	}

	@Test
	void theSlotCountIsFixedForTheLifeOfTheDirectory() {
		try (LifecycleFixture f = slotted("slots-fixed")) {
			f.slots.initialize(4096, List.of("shard-2"), "again"); // same count: nothing changes
			assertThat(f.slots.shardOfSlot(0)).isEqualTo("shard-1");
			assertThatThrownBy(() -> f.slots.initialize(1024, List.of("shard-1"), "test"))
				.isInstanceOf(PlacementException.class)
				.hasMessageContaining("4096");
			SlotMap another = new SlotMap(f.core.directory()).load();
			assertThat(another.slotCount()).isEqualTo(4096);
			assertThat(another.slotsOn("shard-1") + another.slotsOn("shard-2") + another.slotsOn("shard-3"))
				.isEqualTo(4096);
		}
	}

	private static String tenantInSlotOf(String shard, SlotMap slots, int skip) {
		int found = 0;
		for (int i = 0;; i++) {
			String tenant = "whale-" + i;
			if (slots.shardFor(tenant).equals(shard) && found++ == skip) {
				return tenant;
			}
		}
	}

	static List<String> tenantsInOneSlot(int count, int slots) {
		Map<Integer, List<String>> bySlot = new java.util.HashMap<>();
		for (int i = 0;; i++) {
			String tenant = "slotmate-" + i;
			List<String> mates = bySlot.computeIfAbsent(SlotMap.slotOf(tenant, slots), s -> new ArrayList<>());
			mates.add(tenant);
			if (mates.size() == count) {
				return mates;
			}
		}
	}

	static List<String> tenantsInOneSlot(int count, int slots, int slot, String prefix) {
		List<String> found = new ArrayList<>();
		for (int i = 0; found.size() < count; i++) {
			if (SlotMap.slotOf(prefix + i, slots) == slot) {
				found.add(prefix + i);
			}
		}
		return found;
	}

}
