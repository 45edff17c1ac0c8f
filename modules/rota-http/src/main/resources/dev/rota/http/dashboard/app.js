// Rota's admin dashboard: plain JavaScript over the admin API (docs/api.md), no build step.
// The token is entered once and kept in sessionStorage; every call sends it as a Bearer token.
(function () {
  'use strict';
  const POLL_MS = 3000;
  const HISTORY_POINTS = 100; // five minutes at one sample every 3 s
  const TOKEN_KEY = 'rota.token';
  const $ = (id) => document.getElementById(id);
  const history = { t: [], unread: [], rate: [], rateInbox: [], rateScheduled: [], rateExploration: [], p50: [], p99: [], oldest: [] };
  let lastCounts = null; // cluster-wide activation counts at the previous poll, for rates by kind
  const charts = {};
  let timer = null;
  let agentsNext = null;
  let paused = false;

  // ---- API ----

  async function api(method, path) {
    const headers = {};
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = 'Bearer ' + token;
    const response = await fetch(path, { method, headers });
    const text = await response.text();
    const body = text ? JSON.parse(text) : null;
    if (!response.ok) {
      const error = new Error((body && body.message) || response.statusText);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  // ---- formatting ----

  const fmt = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US', { maximumFractionDigits: 2 }));
  function duration(seconds) {
    if (seconds === null || seconds === undefined) return '–';
    const s = Math.round(seconds);
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
    return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
  }
  function bytes(n) {
    if (n === null || n === undefined) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let value = Number(n);
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit += 1;
    }
    return (unit === 0 ? value : value.toFixed(1)) + ' ' + units[unit];
  }
  const ago = (iso) => (iso ? duration((Date.now() - Date.parse(iso)) / 1000) + ' ago' : 'never');
  const time = (iso) => (iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–');

  function cell(text) {
    const td = document.createElement('td');
    td.textContent = text;
    return td;
  }
  function link(text, href) {
    const td = document.createElement('td');
    const a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    td.appendChild(a);
    return td;
  }
  function rows(table, items, render, empty) {
    const body = $(table).querySelector('tbody');
    body.replaceChildren();
    if (!items.length) {
      const tr = document.createElement('tr');
      const td = cell(empty);
      td.colSpan = $(table).querySelectorAll('th').length || 2;
      td.className = 'hint';
      tr.appendChild(td);
      body.appendChild(tr);
      return;
    }
    for (const item of items) {
      const tr = document.createElement('tr');
      render(item).forEach((td) => tr.appendChild(td));
      body.appendChild(tr);
    }
  }
  function kv(table, pairs) {
    rows(table, pairs, ([k, v]) => {
      const th = document.createElement('th');
      th.textContent = k;
      return [th, cell(v)];
    }, 'none');
  }

  // ---- charts ----

  function lineChart(id, series) {
    if (!window.Chart) return null;
    return new Chart($(id), {
      type: 'line',
      data: { labels: history.t, datasets: series.map(([label, data, color]) => ({ label, data, borderColor: color, backgroundColor: color, pointRadius: 0, borderWidth: 2, tension: 0.2 })) },
      options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { x: { ticks: { maxTicksLimit: 6 } }, y: { beginAtZero: true } }, plugins: { legend: { display: series.length > 1 } } },
    });
  }
  function initCharts() {
    charts.unread = lineChart('chart-unread', [['unread', history.unread, '#2f6fed']]);
    charts.rate = lineChart('chart-rate', [
      ['all, this node (1 min)', history.rate, '#1b8a4b'],
      ['inbox', history.rateInbox, '#2f6fed'],
      ['scheduled', history.rateScheduled, '#7a3fb0'],
      ['exploration', history.rateExploration, '#b26b00'],
    ]);
    charts.latency = lineChart('chart-latency', [['p50', history.p50, '#2f6fed'], ['p99', history.p99, '#c4321c']]);
    charts.oldest = lineChart('chart-oldest', [['oldest unread', history.oldest, '#b26b00']]);
  }

  // ---- pages ----

  function card(label, value, id) {
    const div = document.createElement('div');
    div.className = 'card';
    div.innerHTML = '<div class="label"></div><div class="value"></div>';
    div.querySelector('.label').textContent = label;
    const v = div.querySelector('.value');
    v.textContent = value;
    v.id = 'stat-' + id;
    return div;
  }

  async function overview() {
    const s = await api('GET', '/admin/stats');
    showPaused(s.paused);
    // Rates by kind from the cluster-wide counters, between this poll and the previous one.
    const nowMs = Date.now();
    const kinds = ['inbox', 'scheduled', 'exploration'];
    const rates = {};
    for (const kind of kinds) {
      rates[kind] = lastCounts && nowMs > lastCounts.t
        ? Math.max(0, (s.activations[kind] - lastCounts[kind]) / ((nowMs - lastCounts.t) / 1000))
        : null;
    }
    lastCounts = { t: nowMs };
    for (const kind of kinds) lastCounts[kind] = s.activations[kind];
    const perSecond = (x) => (x === null ? '–' : fmt(Math.round(x * 100) / 100));
    $('overview-cards').replaceChildren(
      card('Agents registered', fmt(s.agents.registered), 'registered'),
      card('Agents with inbox', fmt(s.agents.withInbox), 'withInbox'),
      card('Agents leased', fmt(s.agents.leased), 'leased'),
      card('Agents paused', fmt(s.agents.paused), 'agentsPaused'),
      card('Unread notifications', fmt(s.inbox.unread), 'unread'),
      card('Oldest unread', duration(s.inbox.oldestUnreadAgeSeconds), 'oldestUnread'),
      card('Activations/s (1 min)', fmt(s.activations.perSecond1m), 'perSecond'),
      card('Activations/s inbox / scheduled / exploration', kinds.map((k) => perSecond(rates[k])).join(' / '), 'perSecondByKind'),
      card('Activations inbox / scheduled / exploration', kinds.map((k) => fmt(s.activations[k])).join(' / '), 'activations'),
      card('Completed / failed / expired / interrupted', fmt(s.activations.completed) + ' / ' + fmt(s.activations.failed) + ' / ' + fmt(s.activations.expired) + ' / ' + fmt(s.activations.interrupted), 'outcomes'),
      card('Claim latency p50 / p99', fmt(s.latency.claimMsP50) + ' / ' + fmt(s.latency.claimMsP99) + ' ms', 'claimLatency'),
      card('Inbox wait p50 / p99', fmt(s.latency.inboxWaitMsP50) + ' / ' + fmt(s.latency.inboxWaitMsP99) + ' ms', 'inboxWait'),
      card('Runners active / busy / desired', fmt(s.runners.active) + ' / ' + fmt(s.runners.busy) + ' / ' + fmt(s.runners.desired), 'runners'),
      card('Dead letters', fmt(s.deadLetters), 'deadLetters'),
      card('Cluster members / partitions', fmt(s.cluster.nodes) + ' / ' + fmt(s.cluster.partitions), 'cluster'),
    );
    history.t.push(new Date().toLocaleTimeString('en-GB'));
    history.unread.push(s.inbox.unread);
    history.rate.push(s.activations.perSecond1m);
    history.rateInbox.push(rates.inbox);
    history.rateScheduled.push(rates.scheduled);
    history.rateExploration.push(rates.exploration);
    history.p50.push(s.latency.claimMsP50);
    history.p99.push(s.latency.claimMsP99);
    history.oldest.push(s.inbox.oldestUnreadAgeSeconds);
    for (const key of Object.keys(history)) {
      while (history[key].length > HISTORY_POINTS) history[key].shift();
    }
    Object.values(charts).forEach((c) => c && c.update());
  }

  async function fairness() {
    const [s, page] = await Promise.all([api('GET', '/admin/stats'), api('GET', '/v1/agents?order=stalest&limit=1000')]);
    const ideal = s.fairness.idealIntervalSeconds;
    const now = Date.now();
    const staleness = page.agents.map((a) => (a.lastActivatedAt ? (now - Date.parse(a.lastActivatedAt)) / 1000 : null));
    $('fairness-ideal').textContent = ideal > 0
      ? 'Ideal interval N·T/R = ' + duration(ideal) + ' (registered agents × mean activation ÷ active runners). Worst staleness now: ' + duration(s.fairness.maxStalenessSeconds) + '.'
      : 'No ideal interval yet (no active runner or no activation measured). Worst staleness: ' + duration(s.fairness.maxStalenessSeconds) + '.';
    // Buckets in multiples of the ideal interval; without one, in fifths of the worst staleness.
    const worst = Math.max(1, ...staleness.filter((x) => x !== null));
    const scale = ideal > 0 ? ideal : worst / 5;
    const bucket = (e) => (ideal > 0 ? e + '× ideal' : duration(e * scale));
    const labels = ['never'];
    const counts = [staleness.filter((x) => x === null).length];
    const edges = [0.25, 0.5, 1, 1.5, 2, 3, 5];
    let low = 0;
    for (const e of edges) {
      labels.push('≤ ' + bucket(e));
      counts.push(staleness.filter((x) => x !== null && x > low * scale && x <= e * scale).length);
      low = e;
    }
    labels.push('> ' + bucket(low));
    counts.push(staleness.filter((x) => x !== null && x > low * scale).length);
    if (window.Chart) {
      if (charts.staleness) charts.staleness.destroy();
      charts.staleness = new Chart($('chart-staleness'), {
        type: 'bar',
        data: { labels, datasets: [{ label: 'agents', data: counts, backgroundColor: '#2f6fed' }] },
        options: { animation: false, responsive: true, maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
      });
    }
    rows('fairness-table', page.agents.slice(0, 15), (a) => [
      link(a.agentId, '#agent/' + encodeURIComponent(a.agentId)),
      cell(time(a.lastActivatedAt)),
      cell(a.lastActivatedAt ? ago(a.lastActivatedAt) : 'never activated'),
      cell(fmt(a.inbox.unread)),
      cell(a.status),
    ], 'no agents');
  }

  async function agents(more) {
    const order = $('agent-order').value;
    const url = '/v1/agents?limit=50&order=' + order + (more && agentsNext ? '&after=' + encodeURIComponent(agentsNext) : '');
    const page = await api('GET', url);
    const body = $('agents-table').querySelector('tbody');
    const previous = more ? Array.from(body.children) : [];
    rows('agents-table', page.agents, (a) => [
      link(a.agentId, '#agent/' + encodeURIComponent(a.agentId)),
      cell(a.status),
      cell(fmt(a.inbox.unread)),
      cell(a.inbox.oldestUnreadAt ? ago(a.inbox.oldestUnreadAt) : '–'),
      cell(ago(a.lastActivatedAt)),
      cell(fmt(a.activationCount)),
      cell(fmt(a.deadLetters)),
    ], 'no agents');
    if (previous.length) body.prepend(...previous);
    agentsNext = page.next;
    $('agents-more').classList.toggle('hidden', !page.next);
  }

  async function agent(id) {
    const [a, h, x] = await Promise.all([
      api('GET', '/v1/agents/' + encodeURIComponent(id)),
      api('GET', '/v1/agents/' + encodeURIComponent(id) + '/history?limit=100'),
      api('GET', '/v1/agents/' + encodeURIComponent(id) + '/explain'),
    ]);
    $('agent-title').textContent = 'Agent ' + a.agentId;
    $('agent-pause').classList.toggle('hidden', a.status === 'paused');
    $('agent-resume').classList.toggle('hidden', a.status !== 'paused');
    kv('agent-view', [
      ['status', a.status], ['name', a.name || '–'], ['capabilities', (a.capabilities || []).join(', ') || '–'],
      ['priority', fmt(a.priority)], ['unread', fmt(a.inbox.unread)], ['oldest unread', time(a.inbox.oldestUnreadAt)],
      ['last activated', time(a.lastActivatedAt)], ['activations', fmt(a.activationCount)], ['dead letters', fmt(a.deadLetters)],
      ['min interval', duration(a.minActivationIntervalSeconds)], ['max inbox depth', fmt(a.maxInboxDepth)], ['max attempts', fmt(a.maxAttempts)],
      ['metadata', JSON.stringify(a.metadata || {})],
    ]);
    kv('agent-lease', a.lease
      ? [['runner', a.lease.runnerId], ['kind', a.lease.kind], ['granted', time(a.lease.grantedAt)], ['expires', time(a.lease.expiresAt)]]
      : [['lease', 'none held']]);
    const rank = (r) => (r && r.rank ? '#' + fmt(r.rank) + ' (' + fmt(r.ahead) + ' ahead)' : 'not in this order');
    kv('agent-explain', [
      ['eligible now', x.eligible ? 'yes' : 'no'],
      ...x.blockedBy.map((b) => ['blocked by ' + b.reason, (b.until ? 'until ' + time(b.until) + ' — ' : '') + (b.detail || '')]),
      ['inbox order', rank(x.inbox)],
      ['staleness order', rank(x.staleness)],
    ]);
    const calls = a.calls || { made: [], madeCount: 0, served: [], servedCount: 0 };
    rows('agent-calls-made', callGroups(calls.made), (g) => [
      cell(g.group || '– (alone)'),
      cell(g.to.join(', ')),
      cell(g.answered + ' of ' + g.of),
      cell(time(g.deadline)),
    ], 'no call waiting for replies');
    if (calls.madeCount > calls.made.length) $('agent-calls-made').querySelector('tbody').appendChild(moreRow(calls.madeCount - calls.made.length, 4));
    rows('agent-calls-served', calls.served, (c) => [
      cell(c.callId),
      c.from.agentId ? link(c.from.agentId, '#agent/' + encodeURIComponent(c.from.agentId)) : cell('outside Rota (' + c.from.tenant + ')'),
      cell(fmt(c.depth)),
      cell(time(c.receivedAt)),
      cell(c.inTurn ? 'in the running turn' : 'unread'),
    ], 'no call to serve');
    if (calls.servedCount > calls.served.length) $('agent-calls-served').querySelector('tbody').appendChild(moreRow(calls.servedCount - calls.served.length, 5));
    rows('agent-history', h.events, (e) => {
      const details = Object.entries(e).filter(([k]) => k !== 'type' && k !== 'at').map(([k, v]) => k + '=' + v).join('  ');
      return [cell(time(e.at)), cell(e.type), cell(details)];
    }, 'no events');
  }

  // The calls of one group made by one turn share the group's name and their sentAt (the turn's
  // completion); a call alone is a group of one. The deadline shown is the earliest one still waiting.
  function callGroups(made) {
    const groups = new Map();
    for (const c of made) {
      const key = c.group === null ? 'call:' + c.callId : 'group:' + c.group + '@' + c.sentAt;
      const g = groups.get(key) || { group: c.group, to: [], answered: 0, of: 0, deadline: null };
      g.to.push(c.to);
      g.of += 1;
      if (c.answered) g.answered += 1;
      else if (!g.deadline || Date.parse(c.deadline) < Date.parse(g.deadline)) g.deadline = c.deadline;
      groups.set(key, g);
    }
    return Array.from(groups.values());
  }
  function moreRow(count, span) {
    const tr = document.createElement('tr');
    const td = cell('and ' + fmt(count) + ' more');
    td.colSpan = span;
    td.className = 'hint';
    tr.appendChild(td);
    return tr;
  }

  async function runners() {
    const r = await api('GET', '/admin/runners');
    rows('runners-table', r.runners, (x) => {
      const st = x.stats || {};
      const status = cell(x.status);
      status.className = 'runner-' + x.status;
      if (x.degraded) status.title = x.degraded.reason + ' (until ' + time(x.degraded.until) + ')';
      const blocked = x.status === 'degraded' || x.status === 'draining';
      const button = document.createElement('button');
      button.textContent = blocked ? 'Restore' : 'Drain';
      button.className = 'runner-action';
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          await api('POST', '/admin/runners/' + encodeURIComponent(x.runnerId) + (blocked ? '/restore' : '/drain'));
          await runners();
        } catch (error) {
          button.disabled = false;
          failed(error);
        }
      });
      const action = document.createElement('td');
      action.appendChild(button);
      return [
        cell(x.runnerId), status, cell(x.node || 'external'), cell(x.mode || '–'), cell((x.capabilities || []).join(', ') || '–'),
        x.leaseId ? link(x.leaseId, '#agent/' + encodeURIComponent(agentOfLease(x.leaseId))) : cell('idle'),
        cell(fmt(st.completed)), cell(fmt(st.failed)), cell(fmt(st.expired)),
        cell(activationTime(st.meanActivationSeconds)), cell(activationTime(st.p95ActivationSeconds)),
        cell(x.degraded ? x.degraded.reason : (st.lastError || '–')),
        cell(ago(x.lastSeenAt)), action,
      ];
    }, 'no runner seen in the last hour');
    // 503 until the pool scaler's first round (and briefly while it moves to another node).
    const p = await api('GET', '/admin/pools').catch((error) => {
      if (error.status === 503) return null;
      throw error;
    });
    rows('pools-table', p ? p.pools : [], (x) => [
      cell(x.name), cell(x.mode), cell((x.capabilities || []).join(', ') || '–'), cell(x.min + '–' + x.max),
      cell(fmt(x.active)), cell(fmt(x.busy)), cell(fmt(x.desired)), cell(x.reason),
    ], p ? 'no pools' : 'the pool scaler has not reported yet');
  }

  const percent = (x) => (x === null || x === undefined ? '–' : (Math.round(x * 1000) / 10).toFixed(1) + ' %');

  async function tenants() {
    const t = await api('GET', '/admin/tenants');
    rows('tenants-table', t.tenants, (x) => {
      const row = [
        cell(x.tenant), cell(fmt(x.weight)), cell(x.maxConcurrent === null ? '–' : fmt(x.maxConcurrent)),
        cell(x.maxActivationsPerMinute === null ? '–' : fmt(x.maxActivationsPerMinute)),
        cell(fmt(x.agents)), cell(fmt(x.unread)), cell(fmt(x.leased)), cell(fmt(x.activationsPerMinute)),
        cell(percent(x.share.actual)), cell(percent(x.share.fair)),
        cell(x.unread > 0 ? duration(x.oldestUnreadAgeSeconds) : '–'),
      ];
      row[0].className = 'tenant';
      row[0].dataset.tenant = x.tenant;
      return row;
    }, 'no tenants');
  }

  // Activations often take less than a second: show hundredths below ten seconds.
  function activationTime(seconds) {
    if (seconds === null || seconds === undefined) return '–';
    return seconds < 60 ? Number(seconds).toFixed(seconds < 10 ? 2 : 1) + ' s' : duration(seconds);
  }

  // Lease ids embed the agent id as URL-safe base64 before the first '.'.
  function agentOfLease(leaseId) {
    try {
      const b64 = leaseId.split('.')[0].replace(/-/g, '+').replace(/_/g, '/');
      return decodeURIComponent(escape(atob(b64 + '==='.slice((b64.length + 3) % 4))));
    } catch (e) {
      return leaseId;
    }
  }

  async function deadLetters() {
    $('discard-confirm').classList.add('hidden');
    const d = await api('GET', '/admin/dead-letters?limit=200');
    rows('dead-letters-table', d.deadLetters, (x) => {
      const redrive = document.createElement('button');
      redrive.textContent = 'Redrive';
      redrive.className = 'redrive';
      redrive.dataset.id = x.id;
      redrive.addEventListener('click', async () => {
        redrive.disabled = true;
        try {
          await api('POST', '/admin/dead-letters/' + encodeURIComponent(x.id) + '/redrive');
        } catch (error) {
          redrive.disabled = false;
          failed(error);
          return;
        }
        dropDeadLetterRow(redrive);
      });
      // Discarding cannot be undone, so it asks first, as pausing the system does.
      const discard = document.createElement('button');
      discard.textContent = 'Discard';
      discard.className = 'discard danger';
      discard.dataset.id = x.id;
      discard.addEventListener('click', () => {
        confirmThen('Discard the ' + x.type + ' notification of ' + x.agentId + ' for good? It is never delivered.', async () => {
          discard.disabled = true;
          try {
            await api('DELETE', '/admin/dead-letters/' + encodeURIComponent(x.id));
          } catch (error) {
            discard.disabled = false;
            failed(error);
            return;
          }
          dropDeadLetterRow(discard);
        }, 'discard-confirm');
      });
      const td = document.createElement('td');
      td.className = 'actions';
      td.append(redrive, discard);
      return [link(x.agentId, '#agent/' + encodeURIComponent(x.agentId)), cell(x.type), cell(fmt(x.attempts)), cell(x.reason || '–'), cell(time(x.deadAt)), td];
    }, 'no dead letters');
  }

  // The listing reads the read model, which trails the agent by a moment: drop the row now.
  function dropDeadLetterRow(button) {
    const tr = button.closest('tr');
    const body = tr && tr.parentElement;
    if (!body) return;
    tr.remove();
    if (!body.children.length) rows('dead-letters-table', [], () => [], 'no dead letters');
  }

  async function system() {
    const s = await api('GET', '/admin/stats');
    showPaused(s.paused);
    $('system-state').textContent = s.paused ? 'paused' : 'running';
    $('system-toggle').textContent = s.paused ? 'Resume system' : 'Pause system';
    $('system-toggle').className = s.paused ? '' : 'danger';
    storage(s.storage);
  }

  // The journal as its maintenance saw it after its last run; the API leaves it out until a run
  // has ended well (after a start or a fail-over of the singleton), and H2 tells no sizes.
  function storage(x) {
    if (!x) {
      const none = document.createElement('p');
      none.className = 'hint';
      none.id = 'storage-none';
      none.textContent = 'No run of the journal\'s maintenance has reported yet; it runs every rota.journal.maintenance-interval.';
      $('storage-cards').replaceChildren(none);
      return;
    }
    $('storage-cards').replaceChildren(
      card('Journal events', fmt(x.journalRows), 'journalRows'),
      card('Journal size on disk (PostgreSQL)', bytes(x.journalBytes), 'journalBytes'),
      card('Oldest event', duration(x.oldestEventAgeSeconds), 'oldestEvent'),
      card('Retention', duration(x.retentionSeconds), 'retention'),
      card('Last retention run', ago(x.lastRun.endedAt), 'lastRun'),
      card('Events it removed', fmt(x.lastRun.removedRows), 'removedRows'),
      card('Bytes it removed', bytes(x.lastRun.removedBytes), 'removedBytes'),
      card('Read model dead tuples (PostgreSQL)', fmt(x.readModelDeadTuples), 'deadTuples'),
    );
  }

  function showPaused(value) {
    paused = value;
    $('status').textContent = value ? 'SYSTEM PAUSED' : 'running';
    $('status').classList.toggle('paused', value);
  }

  // ---- routing ----

  const pages = {
    overview: { load: overview, poll: true },
    fairness: { load: fairness, poll: true },
    agents: { load: () => agents(false) },
    agent: { load: agent },
    runners: { load: runners, poll: true },
    tenants: { load: tenants, poll: true },
    'dead-letters': { load: deadLetters },
    system: { load: system, poll: true },
  };

  async function route() {
    if (timer) clearInterval(timer);
    const [name, arg] = (location.hash.slice(1) || 'overview').split('/');
    const page = pages[name] ? name : 'overview';
    document.querySelectorAll('.page').forEach((p) => p.classList.toggle('active', p.id === 'page-' + page));
    document.querySelectorAll('#nav a').forEach((a) => a.classList.toggle('active', a.dataset.page === (page === 'agent' ? 'agents' : page)));
    const load = () => pages[page].load(arg ? decodeURIComponent(arg) : undefined).then(loaded, failed);
    await load();
    if (pages[page].poll) timer = setInterval(load, POLL_MS);
  }

  function loaded() {
    document.body.dataset.loaded = String(Date.now());
    $('main').dataset.error = '';
  }

  function failed(error) {
    if (error.status === 401 || error.status === 403) {
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin(error.message);
      return;
    }
    $('main').dataset.error = error.message;
    $('status').textContent = 'error: ' + error.message;
  }

  function showLogin(message) {
    if (timer) clearInterval(timer);
    $('main').classList.add('hidden');
    $('login').classList.remove('hidden');
    $('login-error').textContent = message || '';
  }

  async function signIn(token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    try {
      await api('GET', '/admin/stats');
    } catch (error) {
      sessionStorage.removeItem(TOKEN_KEY);
      showLogin(error.status === 401 || error.status === 403 ? 'This token is not accepted: ' + error.message : error.message);
      return;
    }
    openDashboard();
  }

  // A node without tokens (the anonymous loopback mode) answers without one: open at once, and
  // ask for a token only when the node wants one.
  async function openWithoutToken() {
    try {
      await api('GET', '/admin/stats');
    } catch (error) {
      showLogin(error.status === 401 || error.status === 403 ? '' : error.message);
      return;
    }
    openDashboard();
  }

  function openDashboard() {
    $('login').classList.add('hidden');
    $('main').classList.remove('hidden');
    route();
  }

  // ---- wiring ----

  // box: the id of a .confirm element on the current page, with -text, -yes and -no inside.
  function confirmThen(text, action, box = 'confirm') {
    $(box + '-text').textContent = text;
    $(box).classList.remove('hidden');
    $(box + '-yes').onclick = async () => {
      $(box).classList.add('hidden');
      await action();
    };
    $(box + '-no').onclick = () => $(box).classList.add('hidden');
  }

  document.addEventListener('DOMContentLoaded', () => {
    initCharts();
    $('login-form').addEventListener('submit', (e) => {
      e.preventDefault();
      signIn($('token').value.trim());
    });
    $('agent-search').addEventListener('submit', (e) => {
      e.preventDefault();
      const id = $('agent-id').value.trim();
      if (id) location.hash = '#agent/' + encodeURIComponent(id);
    });
    $('agent-order').addEventListener('change', () => agents(false).then(loaded, failed));
    $('agents-more').addEventListener('click', () => agents(true).then(loaded, failed));
    $('agent-pause').addEventListener('click', () => setAgentPaused(true));
    $('agent-resume').addEventListener('click', () => setAgentPaused(false));
    $('system-toggle').addEventListener('click', () => {
      const pause = !paused;
      confirmThen(pause ? 'Pause the whole system? Running activations finish; no new claims are served.' : 'Resume the system?', async () => {
        await api('POST', pause ? '/admin/pause' : '/admin/resume').then(system).then(loaded, failed);
      });
    });
    window.addEventListener('hashchange', route);
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token === null) openWithoutToken();
    else signIn(token);
  });

  async function setAgentPaused(value) {
    const id = decodeURIComponent(location.hash.split('/')[1] || '');
    await api('POST', '/v1/agents/' + encodeURIComponent(id) + (value ? '/pause' : '/resume'));
    await agent(id).then(loaded, failed);
  }
})();
