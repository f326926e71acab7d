// The live page: polls GET api/state every POLL_MS and redraws; the two forms post to api/moves and api/bursts.
'use strict';

const POLL_MS = 500;
const STEPS = ['PLANNED', 'MARKED', 'COPIED', 'CAUGHT_UP', 'FROZEN', 'FINAL_CAUGHT_UP', 'VERIFIED', 'FLIPPED', 'DONE'];

const $ = (id) => document.getElementById(id);

function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function fillSelect(select, values) {
  const current = Array.from(select.options).map((o) => o.value);
  if (current.length === values.length && current.every((v, i) => v === values[i])) {
    return;
  }
  const chosen = select.value;
  select.innerHTML = values.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join('');
  if (values.includes(chosen)) {
    select.value = chosen;
  }
}

function renderShards(state) {
  $('shards').innerHTML = state.shards.map((shard) => {
    const owned = shard.tenants.map((t) => {
      const moving = t.targetShard ? ` &rarr; ${esc(t.targetShard)}` : '';
      const badge = t.state !== 'ACTIVE' ? `<span class="state state-${esc(t.state)}">${esc(t.state)}${moving}</span>` : '';
      return `<li class="tenant" data-tenant="${esc(t.id)}" data-state="${esc(t.state)}">${esc(t.id)} (${t.orders})${badge}</li>`;
    }).join('');
    const copies = shard.copies.map((t) =>
      `<li class="copy" data-copy="${esc(t.id)}" title="rows of a tenant owned by another shard: a move's copy or rows not cleaned yet">${esc(t.id)} (${t.orders}) copy</li>`).join('');
    return `<div class="shard" data-shard="${esc(shard.id)}">
      <h3>${esc(shard.id)} <small>${shard.tenants.length} tenants, ${shard.orders} orders</small></h3>
      <ul>${owned || '<li class="empty">no tenants</li>'}${copies}</ul></div>`;
  }).join('');
}

function renderSteps(step) {
  if (step === 'ABORTED' || step === 'FAILED') {
    return `<span class="aborted">${esc(step)}</span>`;
  }
  const at = STEPS.indexOf(step);
  return STEPS.map((s, i) => {
    const cls = i === at ? 'current' : (i < at ? 'done' : '');
    return `<span class="${cls}">${esc(s)}</span>`;
  }).join('');
}

function renderMoves(state) {
  const rows = state.moves.map((m) => `<tr data-tenant="${esc(m.tenant)}" data-step="${esc(m.step)}" data-target="${esc(m.target)}">
      <td>${esc(m.tenant)}</td>
      <td>${esc(m.source ?? '?')} &rarr; ${esc(m.target)}</td>
      <td class="step">${esc(m.step)}</td>
      <td><div class="steps">${renderSteps(m.step)}</div><small>${esc(m.stepData ?? '')}</small></td>
      <td>${m.freezeWindowMs != null ? esc(m.freezeWindowMs) + ' ms' : ''}</td>
      <td class="error">${esc(m.error ?? '')}</td></tr>`).join('');
  $('moves').tBodies[0].innerHTML = rows || '<tr><td colspan="6" class="empty">no moves yet</td></tr>';
}

function renderBursts(state) {
  const rows = state.bursts.map((b) => `<tr data-burst="${b.id}" data-tenant="${esc(b.tenant)}" data-running="${b.running}">
      <td>${b.id}</td><td>${esc(b.tenant)}</td><td>${b.threads} &times; ${b.ordersPerThread}${b.pauseMs ? `, ${b.pauseMs} ms apart` : ''}${b.stopped ? ' (stopped)' : ''}</td>
      <td class="committed">${b.committed}</td>
      <td class="failed" title="${esc(Object.entries(b.failuresByType).map(([k, v]) => k + ': ' + v).join(', '))}">${b.failed}</td>
      <td class="running">${b.running}</td>
      <td class="error">${esc(b.lastError ?? '')}</td></tr>`).join('');
  $('bursts').tBodies[0].innerHTML = rows || '<tr><td colspan="7" class="empty">no bursts yet</td></tr>';
}

function renderCounters(state) {
  const r = state.retries;
  $('count-attempts').textContent = r.attempts;
  $('count-retries').textContent = r.retries;
  $('count-rejections').textContent = r.rejections;
  $('count-serialization').textContent = r.serializationFailures;
  $('count-other').textContent = r.otherFailures;
  $('rejections').innerHTML = Object.entries(r.rejectionsByReason)
    .map(([reason, n]) => `<span data-reason="${esc(reason)}">${esc(reason)}: <b>${n}</b></span>`).join('');
  const s = state.router;
  $('router-hits').textContent = s.hits;
  $('router-misses').textContent = s.misses;
  $('router-invalidations').textContent = s.invalidations;
  $('router-entries').textContent = s.cachedEntries;
}

function render(state) {
  $('directory-version').textContent = state.directoryVersion;
  $('router-version').textContent = state.routerVersion;
  const tenants = state.shards.flatMap((s) => s.tenants.map((t) => t.id)).sort();
  fillSelect($('move-tenant'), tenants);
  fillSelect($('burst-tenant'), tenants);
  fillSelect($('move-target'), state.shards.map((s) => s.id));
  renderShards(state);
  renderMoves(state);
  renderBursts(state);
  renderCounters(state);
}

async function poll() {
  try {
    const response = await fetch('api/state', { cache: 'no-store' });
    if (!response.ok) {
      throw new Error(`HTTP ${response.status}`);
    }
    render(await response.json());
    $('status').textContent = 'updated ' + new Date().toLocaleTimeString();
    $('status').className = '';
    document.body.dataset.polls = String(Number(document.body.dataset.polls) + 1);
  }
  catch (e) {
    $('status').textContent = 'cannot read the state: ' + e.message;
    $('status').className = 'error';
  }
  finally {
    setTimeout(poll, POLL_MS);
  }
}

function say(text, isError) {
  $('message').textContent = text;
  $('message').className = isError ? 'message error' : 'message';
}

async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) {
    let detail = `HTTP ${response.status}`;
    try {
      const json = await response.json();
      detail = json.error || json.detail || detail;
    }
    catch (ignored) {
      // no JSON body
    }
    throw new Error(detail);
  }
}

$('move-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const tenant = $('move-tenant').value;
  const target = $('move-target').value;
  try {
    await post('api/moves', { tenant, target, stepPauseMs: Number($('move-pause').value) });
    say(`Moving ${tenant} to ${target}...`, false);
  }
  catch (e) {
    say(`Move refused: ${e.message}`, true);
  }
});

$('burst-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const tenant = $('burst-tenant').value;
  const threads = Number($('burst-threads').value);
  const ordersPerThread = Number($('burst-orders').value);
  const pauseMs = Number($('burst-pause').value);
  try {
    await post('api/bursts', { tenant, threads, ordersPerThread, pauseMs });
    say(`Burst started: ${threads} x ${ordersPerThread} orders for ${tenant}, ${pauseMs} ms apart`, false);
  }
  catch (e) {
    say(`Burst refused: ${e.message}`, true);
  }
});

$('burst-stop').addEventListener('click', async () => {
  try {
    await post('api/bursts/stop');
    say('Bursts asked to stop', false);
  }
  catch (e) {
    say(`Stop failed: ${e.message}`, true);
  }
});

poll();
