// warden panel: live updates (server-sent events), keyboard shortcuts and
// the arguments editor. The pages work without it; this only adds to them.
(function () {
  'use strict';

  document.documentElement.classList.add('js');
  var page = document.body.dataset.page || '';

  // A page restored from the back-forward cache is stale, and its forms
  // may be marked as sent: load it afresh.
  window.addEventListener('pageshow', function (e) {
    if (e.persisted) { window.location.reload(); }
  });

  // ---- small helpers ------------------------------------------------------

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  function parseHTML(html) {
    var t = document.createElement('template');
    t.innerHTML = html;
    return t.content;
  }

  function fetchHTML(url) {
    return fetch(url, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } }).then(function (r) {
      if (r.status === 401) { window.location.reload(); throw new Error('logged out'); }
      if (!r.ok) { throw new Error('HTTP ' + r.status); }
      return r.text();
    });
  }

  // serial runs fn one call at a time; a call made while one is running
  // runs once more after it.
  function serial(fn) {
    var busy = false, again = false;
    function run() {
      if (busy) { again = true; return; }
      busy = true; again = false;
      Promise.resolve().then(fn).catch(function () {}).then(function () {
        busy = false;
        if (again) { run(); }
      });
    }
    return run;
  }

  function ago(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) { return s + 's ago'; }
    if (s < 3600) { return Math.floor(s / 60) + 'm ago'; }
    if (s < 172800) { return Math.floor(s / 3600) + 'h ago'; }
    return Math.floor(s / 86400) + 'd ago';
  }

  function left(ms) {
    var s = Math.ceil(ms / 1000);
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    var pad = function (n) { return (n < 10 ? '0' : '') + n; };
    return h > 0 ? h + 'h ' + pad(m) + 'm' : m + ':' + pad(sec);
  }

  // ---- clocks: relative times and deadlines -------------------------------

  function tick() {
    var now = Date.now();
    $all('time.rel[datetime]').forEach(function (el) {
      var t = Date.parse(el.getAttribute('datetime'));
      if (!isNaN(t)) { el.textContent = ago(now - t); }
    });
    $all('.countdown[data-deadline]').forEach(function (el) {
      var t = Date.parse(el.dataset.deadline);
      if (isNaN(t)) { return; }
      var ms = t - now, fs = el.dataset.failsafe || 'reject';
      el.textContent = ms <= 0 ? 'deadline passed: ' + fs : left(ms) + ' left, then ' + fs;
      el.classList.toggle('urgent', ms < 60000);
      if (ms <= -1000 && !el.dataset.expired && page === 'queue') {
        // The store closes an expired request when it next looks; ask.
        el.dataset.expired = '1';
        refreshQueue();
      }
    });
  }

  // ---- pending count --------------------------------------------------------

  function setPending(n) {
    var el = $('#pending-count');
    if (el) {
      el.textContent = String(n);
      el.classList.toggle('zero', n === 0);
    }
    document.title = document.title.replace(/^\(\d+\) /, '');
    if (n > 0) { document.title = '(' + n + ') ' + document.title; }
  }

  // ---- the queue ------------------------------------------------------------

  var decisions = {}; // request id → the request as last announced

  // lost is set when the selected card was decided elsewhere: nothing is
  // selected again until the person moves (j, k, a click), so a shortcut
  // never lands on a card the person did not choose (SPEC S4).
  var lost = false;

  var noticeEl = $('#panel-notice');
  function say(msg, tone) {
    if (!noticeEl) { return; }
    noticeEl.textContent = msg || '';
    noticeEl.className = 'notice panel-notice ' + (tone || 'warn');
    noticeEl.hidden = !msg;
  }

  function liveCards() { return $all('#queue article.req:not(.gone)'); }

  function current() { return $('#queue article.req.current:not(.gone)'); }

  function setCurrent(card, scroll) {
    $all('#queue article.req.current').forEach(function (c) { c.classList.remove('current'); });
    if (!card) { return; }
    lost = false;
    card.classList.add('current');
    if (scroll) {
      // At once, not smoothly: the card is in view when the next key comes.
      card.scrollIntoView({ block: 'nearest', behavior: 'auto' });
      card.focus({ preventScroll: true });
    }
  }

  function callName(card) {
    var c = $('.req-title code', card);
    return c ? c.textContent : 'a request';
  }

  function markGone(card) {
    var wasCurrent = card.classList.contains('current');
    card.classList.add('gone');
    card.classList.remove('current');
    var r = decisions[card.dataset.id];
    var outcome = r ? (r.status === 'decided' ? r.decision : r.status) : 'decided';
    var past = { approve: 'approved', 'continue': 'approved', reject: 'rejected', terminate: 'terminated', modify: 'modified', escalate: 'escalated' }[outcome] || outcome;
    var by = r && r.decided_by ? ' by ' + r.decided_by : ' elsewhere';
    var form = $('form.decide', card);
    if (form) {
      var p = document.createElement('p');
      p.className = 'decided-line';
      var b = document.createElement('span');
      b.className = 'badge';
      b.textContent = outcome;
      p.appendChild(b);
      p.appendChild(document.createTextNode(by));
      form.replaceWith(p);
    }
    if (wasCurrent) {
      lost = true;
      if (document.activeElement && card.contains(document.activeElement)) { document.activeElement.blur(); }
      say('The request you had selected, ' + callName(card) + ', was ' + past + by + '. Nothing is selected now: press j or k, or click a request, to choose the next one.', 'warn');
    }
    setTimeout(function () {
      card.remove();
      showEmptyIfNone();
      if (!current() && !lost) { setCurrent(liveCards()[0], false); }
    }, 4000);
  }

  // ---- whole and in view ----------------------------------------------------

  // A long call (or a review's long output) shows its first lines until
  // expanded; Approve waits.
  function longParts(card) { return $all('pre.long, .long-out .output pre', card); }

  function whole(card) {
    return longParts(card).every(function (pre) { return pre.classList.contains('whole'); });
  }

  function expand(card) {
    var parts = longParts(card);
    if (!parts.length) { return false; }
    parts.forEach(function (pre) { pre.classList.add('whole'); });
    $all('[data-action="expand"]', card).forEach(function (b) { b.setAttribute('aria-expanded', 'true'); });
    $all('[data-needs-whole]', card).forEach(function (x) { x.disabled = false; x.removeAttribute('title'); });
    // The approval now carries the digest of the request shown whole;
    // the server refuses one without it.
    $all('input[name="seen"]', card).forEach(function (x) { x.value = x.dataset.seen || ''; });
    return true;
  }

  function holdUntilWhole(card) {
    var parts = longParts(card);
    if (!parts.length) { return; }
    var fits = parts.every(function (pre) { return pre.scrollHeight <= pre.clientHeight + 2; });
    if (fits) { expand(card); return; } // it all shows already
    $all('[data-needs-whole]', card).forEach(function (x) {
      x.disabled = true;
      x.title = 'Show all of it first (v)';
    });
  }

  // inView reports whether the card's decision buttons are on the screen,
  // and the card starts above its bottom edge.
  function inView(card) {
    var h = window.innerHeight || document.documentElement.clientHeight;
    var c = ($('.choices', card) || card).getBoundingClientRect();
    return c.top >= -2 && c.bottom <= h + 2 && card.getBoundingClientRect().top < h;
  }

  // shownAt is when the panel last brought a card into view for the
  // person: a keyboard approval waits a moment after it, so that a key
  // pressed in the same breath never approves what just appeared.
  var shownAt = 0;
  var dwell = 800;

  function reveal(card, what) {
    (what || card).scrollIntoView({ block: 'nearest', behavior: 'auto' });
    card.focus({ preventScroll: true });
    shownAt = Date.now();
  }

  // approveKey approves the selected card with the keyboard, only when it
  // is shown whole and in view; otherwise it shows the card and says why.
  function approveKey(card) {
    if (!card) {
      say(lost ? 'Nothing is selected (the selected request was decided elsewhere): press j or k to choose one.' : 'Nothing is selected: press j or k to choose a request.', 'warn');
      return true;
    }
    if (!whole(card)) {
      reveal(card);
      say('The request ' + callName(card) + ' is long and not shown whole: press v (or Show the whole call) and read it before approving.', 'warn');
      return true;
    }
    if (!inView(card)) {
      reveal(card, $('.choices', card));
      say('The selected request, ' + callName(card) + ', was not in view: it is now. Read it, then press a again.', 'warn');
      return true;
    }
    if (Date.now() - shownAt < dwell) {
      say('The selected request, ' + callName(card) + ', has just come into view: read it, then press a again.', 'warn');
      return true;
    }
    say('');
    return press(card, ['approve', 'continue']);
  }

  var emptyHTML = null;
  function showEmptyIfNone() {
    var q = $('#queue');
    if (!q) { return; }
    var empty = $('#empty-queue', q);
    if (q.querySelector('article.req')) {
      if (empty) { empty.remove(); }
    } else if (!empty && emptyHTML) {
      q.appendChild(parseHTML(emptyHTML));
    }
  }

  function reconcile(html) {
    var frag = parseHTML(html);
    var wrap = frag.firstElementChild;
    if (!wrap) { return; }
    setPending(parseInt(wrap.dataset.pending || '0', 10));
    var q = $('#queue');
    if (!q) { return; }
    var e = $('#empty-queue', wrap);
    if (e) { emptyHTML = e.outerHTML; }
    var incoming = $all('article.req', wrap);
    var ids = {};
    incoming.forEach(function (a) { ids[a.id] = true; });
    $all('article.req:not(.gone)', q).forEach(function (a) { if (!ids[a.id]) { markGone(a); } });
    var prev = null;
    incoming.forEach(function (a) {
      var cur = document.getElementById(a.id);
      if (!cur) {
        cur = document.importNode(a, true);
        cur.classList.add('fresh');
        if (prev) { prev.after(cur); } else { q.prepend(cur); }
        setupCard(cur);
        notify(cur);
      }
      prev = cur;
    });
    showEmptyIfNone();
    tick();
    if (!$('#queue article.req.current') && !lost) { setCurrent(liveCards()[0], false); }
  }

  var refreshQueue = serial(function () {
    return fetchHTML('/fragments/queue').then(reconcile);
  });

  // ---- the arguments editor -------------------------------------------------

  function describeJSONError(text) {
    if (text.trim() === '') { return 'The arguments are empty: write a JSON object such as {"name": "value"}.'; }
    var v;
    try { v = JSON.parse(text); } catch (err) { return 'Not valid JSON: ' + err.message; }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      return 'The arguments must be a JSON object ({…}), not ' + (Array.isArray(v) ? 'an array' : v === null ? 'null' : 'a ' + typeof v) + '.';
    }
    return '';
  }

  function validate(ta) {
    var card = ta.closest('article.req');
    var msg = describeJSONError(ta.value);
    var err = $('.field-error', card);
    if (err) { err.textContent = msg; }
    if (msg) { ta.setAttribute('aria-invalid', 'true'); } else { ta.removeAttribute('aria-invalid'); }
    var submit = $('[data-action="submit-modify"]', card);
    if (submit) { submit.disabled = !!msg; }
    return !msg;
  }

  function openEditor(card) {
    var d = $('details.editor', card);
    if (!d) { return false; }
    d.open = true;
    var t = $('[data-action="modify"]', card);
    if (t) { t.setAttribute('aria-expanded', 'true'); }
    var ta = $('textarea', d);
    ta.focus();
    validate(ta);
    return true;
  }

  function closeEditor(card) {
    var d = $('details.editor', card);
    if (!d) { return; }
    d.open = false;
    var t = $('[data-action="modify"]', card);
    if (t) { t.setAttribute('aria-expanded', 'false'); }
    card.focus({ preventScroll: true });
  }

  function setupCard(card) {
    var form = $('form.decide', card);
    if (!form || form.dataset.ready) { return; }
    form.dataset.ready = '1';
    var ta = $('textarea[name="modified"]', card);
    if (ta) {
      ta.addEventListener('input', function () { validate(ta); });
      ta.addEventListener('keydown', function (e) {
        if (e.key === 'Escape') { e.preventDefault(); closeEditor(card); }
        if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          var b = $('[data-action="submit-modify"]', card);
          if (b && validate(ta)) { form.requestSubmit(b); }
        }
      });
      if ($('details.editor', card).open) { validate(ta); }
    }
    holdUntilWhole(card);
    card.addEventListener('click', function (e) {
      setCurrent(card, false);
      say('');
      var b = e.target.closest('button[data-action]');
      if (!b) { return; }
      switch (b.dataset.action) {
        case 'expand':
          expand(card);
          break;
        case 'modify':
          var d = $('details.editor', card);
          if (d && d.open) { closeEditor(card); } else { openEditor(card); }
          break;
        case 'reset':
          ta.value = ta.dataset.original;
          validate(ta);
          ta.focus();
          break;
        case 'cancel':
          closeEditor(card);
          break;
      }
    });
    form.addEventListener('submit', function (e) {
      if (form.dataset.sent) { e.preventDefault(); return; }
      var s = e.submitter;
      if (s && s.hasAttribute('data-needs-whole') && !whole(card)) { e.preventDefault(); return; }
      if (s && s.value === 'modify' && ta && !validate(ta)) {
        e.preventDefault();
        ta.focus();
        return;
      }
      form.dataset.sent = '1';
    });
  }

  // ---- browser notifications -------------------------------------------------

  // notify tells the person of a new request, when they allowed it and the
  // page is not in front of them.
  function notify(card) {
    if (!window.Notification || Notification.permission !== 'granted') { return; }
    if (!document.hidden && document.hasFocus()) { return; }
    var kind = $('.badge.kind', card);
    try {
      var n = new Notification('warden: ' + (kind ? kind.textContent : 'request') + ' waiting', { body: callName(card), tag: card.id });
      n.onclick = function () { window.focus(); setCurrent(card, true); n.close(); };
    } catch (err) { /* some browsers only notify from a service worker */ }
  }

  function setupNotify() {
    var b = $('#notify');
    if (!b) { return; }
    if (!window.Notification) { b.remove(); return; }
    var show = function () {
      var p = Notification.permission;
      b.textContent = p === 'granted' ? 'Notifications on' : p === 'denied' ? 'Notifications blocked by the browser' : 'Notify me of new requests';
      b.disabled = p !== 'default';
    };
    show();
    b.addEventListener('click', function () {
      var r = Notification.requestPermission(show);
      if (r && r.then) { r.then(show); }
    });
  }
  setupNotify();

  // ---- keyboard -------------------------------------------------------------

  function typing(el) {
    if (!el || el === document.body) { return false; }
    if (el.isContentEditable) { return true; }
    var tag = el.tagName;
    if (tag === 'TEXTAREA' || tag === 'SELECT') { return true; }
    if (tag === 'INPUT') {
      var type = (el.type || 'text').toLowerCase();
      return ['button', 'submit', 'reset', 'checkbox', 'radio'].indexOf(type) < 0;
    }
    return false;
  }

  function press(card, actions) {
    for (var i = 0; i < actions.length; i++) {
      var b = $('button[data-action="' + actions[i] + '"]', card);
      if (b && !b.disabled) { b.click(); return true; }
    }
    return false;
  }

  if (page === 'queue') {
    document.addEventListener('keydown', function (e) {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) { return; }
      if (typing(e.target)) { return; }
      var cards = liveCards();
      var card = current();
      var i = cards.indexOf(card);
      var done = true;
      switch (e.key) {
        case 'j': setCurrent(cards[Math.min(i + 1, cards.length - 1)], true); say(''); break;
        case 'k': setCurrent(cards[Math.max(i - 1, 0)], true); say(''); break;
        case 'a': done = approveKey(card); break;
        case 'v':
          if (card && expand(card)) {
            card.scrollIntoView({ block: 'start' });
            shownAt = Date.now();
            say('');
          } else { done = false; }
          break;
        case 'r': done = !!card && press(card, ['reject']); break;
        case 't': done = !!card && press(card, ['terminate']); break;
        case 'e': done = !!card && press(card, ['escalate']); break;
        case 'm': done = !!card && openEditor(card); break;
        case 'Escape': if (card) { closeEditor(card); } break;
        default: done = false;
      }
      if (done) { e.preventDefault(); }
    });
    liveCards().forEach(setupCard);
    var open = $('#queue details.editor[open]');
    if (open) {
      var c = open.closest('article.req');
      setCurrent(c, true);
      var ta = $('textarea', open);
      ta.focus();
    } else {
      var linked = /^#req-/.test(window.location.hash) && document.getElementById(window.location.hash.slice(1));
      setCurrent(linked || liveCards()[0], !!linked);
    }
  }

  // ---- a run's transcript -------------------------------------------------

  var runEl = $('#run');
  var refreshRun = serial(function () {
    // A page with later pages after it does not grow: the last page does.
    if (!runEl || runEl.dataset.more) { return null; }
    var url = '/fragments/runs/' + encodeURIComponent(runEl.dataset.run) + '?after=' + encodeURIComponent(runEl.dataset.last || '');
    return fetchHTML(url).then(function (html) {
      var list = $('#events');
      var nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 200;
      var added = 0;
      $all('li.ev', parseHTML(html)).forEach(function (li) {
        runEl.dataset.last = li.dataset.id;
        if (document.getElementById(li.id)) { return; }
        var n = document.importNode(li, true);
        n.classList.add('fresh');
        list.appendChild(n);
        added++;
      });
      if (added) {
        var c = $('#run-events');
        if (c) { c.textContent = String(parseInt(c.textContent || '0', 10) + added); }
        if (nearBottom) { window.scrollTo({ top: document.body.scrollHeight, behavior: 'smooth' }); }
      }
    });
  });

  // The notice of the requests this run waits on, kept current.
  var refreshWaiting = serial(function () {
    var box = $('#run-waiting-box');
    if (!runEl || !box) { return null; }
    return fetchHTML('/fragments/runs/' + encodeURIComponent(runEl.dataset.run) + '/waiting').then(function (html) {
      box.replaceChildren(parseHTML(html));
      tick();
    });
  });

  function runEnded(status) {
    var b = $('#run-status');
    if (b) {
      b.textContent = status;
      b.className = 'badge ' + (status === 'completed' ? 'ok' : status === 'error' ? 'bad' : 'warn');
    }
    var t = $('#tail');
    if (t) { t.textContent = 'End of the transcript.'; }
    var d = $('#run-duration');
    if (d) { d.textContent = d.textContent.replace(/ so far$/, ''); }
  }

  tick();
  setInterval(tick, 1000);

  // ---- server-sent events ---------------------------------------------------

  if (window.EventSource && $('#live')) {
    var live = $('#live');
    var wasDown = false;
    var es = new EventSource('/api/events/stream');
    es.addEventListener('open', function () {
      live.textContent = 'live';
      live.classList.add('on');
      // Catch up on what changed between the page's rendering (or the
      // last disconnection) and the subscription.
      if (page === 'queue' || wasDown) { refreshQueue(); }
      if (runEl) { refreshRun(); }
      wasDown = false;
    });
    es.addEventListener('error', function () {
      live.textContent = 'reconnecting…';
      live.classList.remove('on');
      wasDown = true;
    });
    es.addEventListener('request', function (m) {
      try {
        var r = JSON.parse(m.data);
        if (r && r.id) { decisions[r.id] = r; }
      } catch (err) { /* a malformed message only triggers a refresh */ }
      if (runEl && r && r.run_id === runEl.dataset.run) { refreshWaiting(); }
      if (page === 'queue') {
        refreshQueue();
      } else {
        fetchHTML('/fragments/queue').then(function (html) {
          var w = parseHTML(html).firstElementChild;
          if (w) { setPending(parseInt(w.dataset.pending || '0', 10)); }
        }).catch(function () {});
      }
    });
    es.addEventListener('event', function (m) {
      if (!runEl) { return; }
      var ev;
      try { ev = JSON.parse(m.data); } catch (err) { return; }
      if (!ev || ev.run_id !== runEl.dataset.run) { return; }
      refreshRun();
      if (ev.event === 'run_end') { runEnded(ev.status || 'ended'); }
    });
    window.addEventListener('beforeunload', function () { es.close(); });
  }
})();
