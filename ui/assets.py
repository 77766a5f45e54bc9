"""Page-wide CSS and script, passed to `launch(css=..., head=...)` by app.py.

The script adds what Gradio's components do not: accessible names on the score groups, hotkeys
(a digit picks the point that shows it on the focused group, on any scale, and moves on to the next
group, then the next response, then Submit; a two-digit point takes its two digits, 1 then 0 for 10;
0 answers "can't judge" where the scale has no 0; Ctrl+Enter submits), the phone's A/B/C pager, and, after a submit,
bringing the next item's prompt into view with focus and the pager back on A. Nothing is stored in
the browser.
"""

from __future__ import annotations

import re

CSS = """
/* Gradio's raw queue and timer text ("queue: 1/1 | 35.6/1480.0s", "processing |") means nothing to a rater
   or a reader of the results, and is English on a Chinese page: hidden on the Rate and Results tabs (their
   own lines say what is going on). Keyed on #rate-intro, which every rating page has (1-5, rubric and
   pairwise alike); #rate-submit-row is not rendered on a pairwise study's page. */
.tabitem:has(#rate-intro) .meta-text, .tabitem:has(#rate-intro) .meta-text-center,
.tabitem:has(#rate-intro) .progress-text, .tabitem:has(#results-controls) .meta-text,
.tabitem:has(#results-controls) .meta-text-center, .tabitem:has(#results-controls) .progress-text,
body:has(#rate-intro):not(:has(.tabitem)) .meta-text, body:has(#rate-intro):not(:has(.tabitem)) .progress-text,
body:has(#rate-intro):not(:has(.tabitem)) .meta-text-center { display: none !important; }
/* No item on screen (the done page, or the blind question standing in the responses' place): no Submit,
   no Next, no "0 of 9 scored"; Previous stays (Gradio renders no hidden response column). */
body:has(#rate-who strong):not(:has(#rate-responses .rate-slot)) #rate-submit,
body:has(#rate-who strong):not(:has(#rate-responses .rate-slot)) #rate-next,
body:has(#rate-who strong):not(:has(#rate-responses .rate-slot)) #rate-counter { display: none !important; }
/* Compare: the run's progress is its status line (ui/compare one_progress); Gradio's timer text
   ("0.3s Starting…", "processing | 0.1/0.1s") is noise there too. */
.tabitem:has(#compare-run) .meta-text, .tabitem:has(#compare-run) .meta-text-center,
.tabitem:has(#compare-run) .progress-text { display: none !important; }
/* the example tables fit a phone's width: their cells wrap instead of pushing the page sideways */
#compare-examples table, #compare-task-examples table { table-layout: fixed; width: 100%; }
#compare-examples td, #compare-task-examples td, #compare-examples th, #compare-task-examples th {
  overflow-wrap: anywhere; min-width: 0; }
#rate-responses { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 12px; }
#rate-responses > .rate-slot { min-width: 0; }
/* a question or prompt brought to the top keeps a little room above it (no sub-pixel cut at the edge) */
#rate-guess, #pair-guess, #rate-prompt, #pair-prompt { scroll-margin-top: 8px; }
.rate-slot fieldset .wrap, .rate-slot [role=radiogroup] .wrap { flex-wrap: nowrap !important; }
.rate-slot fieldset label { min-width: 2.4em; justify-content: center; }
.rate-missing fieldset, fieldset.rate-missing { outline: 2px solid #b42318; outline-offset: 2px; border-radius: 6px; }
/* A long scale (1-10, 0-10: ui/rate/rubric_form.py): a compact grid of buttons,
   six to a row, "Can't judge" on a row of its own, instead of one line that runs off a phone. */
.rate-slot .rate-long-scale .wrap { display: grid !important; grid-template-columns: repeat(6, minmax(0, 1fr));
                                     gap: 4px !important; flex-wrap: wrap !important; }
.rate-slot .rate-long-scale label { min-width: 0 !important; justify-content: center; padding: 4px 2px !important; }
.rate-slot .rate-long-scale label:last-child { grid-column: 1 / -1; }
/* Labelled options (yes/no, a choice: .rate-by-position) wrap to the next line rather than run out of
   a narrow response column: their labels are words, not digits. */
.rate-slot .rate-by-position .wrap { flex-wrap: wrap !important; }
/* Submit stays on screen: a bar fixed to the bottom of the window while the Rate tab is open
   (sticky positioning does not hold inside Gradio's containers). */
#rate-submit-row { position: fixed; left: 0; right: 0; bottom: 0; z-index: 1000; margin: 0;
                   background: var(--background-fill-primary); padding: 8px 16px;
                   border-top: 1px solid var(--border-color-primary); box-shadow: 0 -2px 8px rgba(0,0,0,.08); }
#rate-status { padding-bottom: 72px; }
.rate-response-title { font-size: 1rem; font-weight: 600; margin: 0 0 6px; }
.rate-response-body { border: 1px solid var(--border-color-primary); border-radius: 6px; padding: 8px 12px;
                      overflow-wrap: anywhere; }
.rate-response-body pre { white-space: pre-wrap; }
.rate-response-body .md-image { color: var(--body-text-color-subdued); font-style: italic; }
/* Answers first: once a code is accepted ("Rating as …"), the intro and the code box give way to the
   responses; the guidelines, open on a rater's first item, scroll inside a short box. */
body:has(#rate-who strong) #rate-intro, body:has(#rate-who strong) #rate-code-row { display: none !important; }
#rate-guide .prose { max-height: 9.5em; overflow-y: auto; }
#rate-pager { display: none; }
/* Pairwise: A and B side by side, stacked on a phone; the four vote buttons in one row. */
#pair-responses { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
#pair-responses > * { min-width: 0; }
#pair-votes button { min-height: 44px; }
@media (max-width: 640px) {
  #pair-responses { grid-template-columns: 1fr; }
  #pair-votes { flex-wrap: wrap !important; }
  /* the vote buttons stay on screen on a phone, as Submit does: a bar fixed to the bottom */
  #pair-votes { position: fixed; left: 0; right: 0; bottom: 0; z-index: 1000; margin: 0; padding: 6px 8px;
                background: var(--background-fill-primary); border-top: 1px solid var(--border-color-primary); }
  #pair-panel { padding-bottom: 120px; }
  #pair-votes > * { flex: 1 1 45% !important; min-width: 0 !important; }
}
@media (max-width: 640px) {
  #rate-responses { display: flex !important; flex-wrap: nowrap !important; overflow-x: auto;
                    scroll-snap-type: x mandatory; gap: 8px; }
  #rate-responses > .rate-slot { flex: 0 0 88% !important; min-width: 88% !important; scroll-snap-align: start; }
  #rate-guide .prose { max-height: 5.3em; }  /* three lines: the cut-off note whole (issue 35) */
  #rate-pager { display: flex; gap: 6px; margin: 4px 0; }
  #rate-pager button { min-width: 44px; min-height: 36px; border: 1px solid var(--border-color-primary);
                       border-radius: 6px; background: var(--background-fill-secondary); font-weight: 600; }
  #rate-pager button[aria-pressed=true] { background: var(--color-accent); color: white; }
  #rate-pager button[hidden] { display: none; }
  /* "Can't judge" wraps inside its own button rather than out of it */
  .rate-slot fieldset .wrap, .rate-slot [role=radiogroup] .wrap { gap: 4px !important; }
  .rate-slot fieldset label { min-width: 0 !important; flex: 1 1 auto; padding: 4px 3px !important; }
  .rate-slot fieldset label span { white-space: normal; line-height: 1.1; text-align: center; }
  /* every point a 44 px target on any scale (1-5, 1-7, 1-10): a grid of buttons at least 44 px wide
     (1-5 on one line) that wraps where a line is full, "Can't judge" on a line of its own */
  .rate-slot fieldset label { min-height: 44px; align-items: center; }
  .rate-slot fieldset .wrap, .rate-slot .rate-long-scale .wrap {
    display: grid !important; grid-template-columns: repeat(auto-fill, minmax(44px, 1fr)); gap: 4px !important; }
  .rate-slot fieldset label:last-child { grid-column: 1 / -1; }
  /* labelled options: as wide as their words need (a 44 px column cut "repetition" to "repetiti"),
     side by side where two fit on a line */
  .rate-slot .rate-by-position .wrap {
    grid-template-columns: repeat(auto-fit, minmax(min(100%, 9em), 1fr)) !important; }
  /* the pinned bar: one row */
  #rate-submit-row { flex-wrap: nowrap !important; gap: 6px; padding: 6px 8px; }
  #rate-submit-row > * { min-width: 0 !important; flex: 1 1 auto !important; }
  #rate-submit-row button { padding: 6px 4px; font-size: 0.85rem; white-space: nowrap; }
  #rate-submit-row #rate-counter { display: none; }
  #rate-status { padding-bottom: 56px; }
}
"""

# The phone's A/B/C pager: a button per response slot brings that response into view (the swipe row
# scrolls to it); after a submit or a move it is back on A (`RESET_PAGER_JS`).
PAGER_HTML = "".join(
    f'<button type="button" data-slot="{k}" aria-pressed="{str(k == 0).lower()}">{label}</button>'
    for k, label in enumerate("ABCD")
)
PAGER_JS = """
element.addEventListener('click', (e) => {
  const b = e.target.closest('button[data-slot]');
  if (!b) return;
  window.arenaPager && window.arenaPager(parseInt(b.getAttribute('data-slot'), 10));
});
"""
RESET_PAGER_JS = "() => { window.arenaPager && window.arenaPager(0); }"

HEAD = """
<script>
(function () {
  function nameGroups() {
    // The guidelines scroll inside a short box: a keyboard user must be able to focus it to scroll.
    document.querySelectorAll('#rate-guide .prose').forEach(function (g) {
      if (g.hasAttribute('tabindex')) return;
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'region');
      g.setAttribute('aria-label', 'Guidelines');
    });
    // gr.Dataframe's virtual scroller is a box with a max height: a keyboard user must be able to
    // focus something in it to scroll it (axe: scrollable-region-focusable). The scroller itself sits
    // between the role=grid and its rows, where a focusable box breaks the grid's structure for a
    // screen reader (axe: aria-required-children); a grid's own cells are what the ARIA grid pattern
    // makes focusable, so its first column header takes the focus and the arrow keys scroll from there.
    document.querySelectorAll('div.virtual-table-viewport').forEach(function (v) {
      if (v.querySelector('[tabindex="0"]')) return;
      var head = v.querySelector('[role=columnheader], th');
      if (head) head.setAttribute('tabindex', '0');
    });
    document.querySelectorAll('.rate-slot fieldset').forEach(function (fs) {
      if (fs.getAttribute('aria-label')) return;
      var title = fs.querySelector('[data-testid=block-info], .block-info, span');
      var slot = fs.closest('.rate-slot');
      var resp = slot ? slot.querySelector('label textarea') : null;
      var head = slot && slot.querySelector('[data-testid=block-info]');
      var name = (title ? title.textContent.trim() : 'score');
      var which = slot ? (slot.getAttribute('data-label') || '') : '';
      fs.setAttribute('role', 'radiogroup');
      fs.setAttribute('aria-label', (which ? 'Response ' + which + ': ' : '') + name);
    });
  }
  function slots() {
    return Array.from(document.querySelectorAll('#rate-responses > .rate-slot')).filter(function (s) {
      return s.offsetParent !== null;
    });
  }
  function syncPager(current) {
    var n = slots().length;
    document.querySelectorAll('#rate-pager button[data-slot]').forEach(function (b) {
      var k = parseInt(b.getAttribute('data-slot'), 10);
      if (k >= n) b.setAttribute('hidden', ''); else b.removeAttribute('hidden');
      if (current !== undefined) b.setAttribute('aria-pressed', String(k === current));
    });
  }
  // Bring response k into view in the phone's swipe row (and mark it in the pager).
  window.arenaPager = function (k) {
    var row = document.querySelector('#rate-responses');
    var list = slots();
    if (!row || !list.length) return;
    var slot = list[Math.min(k, list.length - 1)];
    row.scrollTo({left: slot.offsetLeft - row.offsetLeft, behavior: 'instant'});
    syncPager(Math.min(k, list.length - 1));
  };
  new MutationObserver(function () { nameGroups(); syncPager(); })
    .observe(document.documentElement, {childList: true, subtree: true});
  // The form's Submit, when it is on screen and not held (ui/rate/once.py).
  function submitButton() {
    return Array.from(document.querySelectorAll('#rate-submit')).find(function (b) {
      return b.offsetParent !== null && !b.disabled;
    });
  }
  // Ctrl+Enter in the capture phase: a text box (a comment) handles Enter itself and stops it there.
  document.addEventListener('keydown', function (e) {
    if (!((e.ctrlKey || e.metaKey) && e.key === 'Enter')) return;
    var btn = submitButton();
    if (!btn) return;
    e.preventDefault();
    e.stopPropagation();
    btn.click();
  }, true);
  function focusedRow() {
    var el = document.activeElement;
    return el && el.closest ? el.closest('.rate-slot fieldset') : null;
  }
  // Submit is held from a click until the next item has been on screen a moment (ui/rate/once.py): a
  // last row answered meanwhile hands the keyboard to Submit once it is given back, unless the rater
  // has left that row by then.
  function toSubmit(fs, waited) {
    var submit = submitButton();
    if (submit) { submit.focus(); return; }
    if (waited < 30000) setTimeout(function () { if (focusedRow() === fs) toSubmit(fs, waited + 100); }, 100);
  }
  // One key per score: on to the next row, then the next response (the pager follows), then Submit.
  function moveOn(fs) {
    var groups = Array.from(document.querySelectorAll('.rate-slot fieldset')).filter(function (g) {
      return g.offsetParent !== null;
    });
    var next = groups[groups.indexOf(fs) + 1];
    if (!next) { toSubmit(fs, 0); return; }
    var slot = next.closest('.rate-slot');
    if (slot !== fs.closest('.rate-slot') && window.arenaPager) window.arenaPager(slots().indexOf(slot));
    var to = next.querySelector('input[type=radio]:checked') || next.querySelector('input[type=radio]');
    if (to) { to.focus({preventScroll: true}); next.scrollIntoView({block: 'nearest'}); }
  }
  // A first digit that a second may extend into a two-digit point (1 then 0: 10), for PAIR_MS.
  var PAIR_MS = 700;
  var pending = null;
  function settle() {
    if (!pending) return;
    var p = pending;
    pending = null;
    clearTimeout(p.timer);
    moveOn(p.fs);
  }
  document.addEventListener('keydown', function (e) {
    if (!/^[0-9]$/.test(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
    var fs = focusedRow();
    if (!fs) return;
    var points = function (g) { return Array.from(g.querySelectorAll('input[type=radio]')); };
    if (pending && pending.fs === fs) {
      var two = points(fs).find(function (i) { return i.value === pending.first + e.key; });
      if (two) {
        e.preventDefault();
        clearTimeout(pending.timer);
        pending = null;
        two.click();
        moveOn(fs);
        return;
      }
      settle();  // no such point here: the first digit stands, and this one answers the next row
      fs = focusedRow();
      if (!fs) return;
    }
    var inputs = points(fs);
    // A digit picks the button that shows it (1-5, 1-7, 1-10, 0-6...); 0 on a scale without a 0 is
    // the last button, "can't judge".
    var k = parseInt(e.key, 10);
    // Labelled options (yes/no, a choice): the k-th button, whatever value it stores.
    var byPlace = fs.closest('.rate-by-position');
    var target = (!byPlace && inputs.find(function (i) { return i.value === e.key; })) ||
      (k === 0 ? inputs[inputs.length - 1] : k - 1 < inputs.length - 1 ? inputs[k - 1] : null);
    if (!target) return;
    e.preventDefault();
    target.click();
    var longer = !byPlace && target.value === e.key && inputs.some(function (i) {
      return /^[0-9]{2}$/.test(i.value) && i.value.charAt(0) === e.key;
    });
    if (longer) { pending = {fs: fs, first: e.key, timer: setTimeout(settle, PAIR_MS)}; return; }
    moveOn(fs);
  });
})();
</script>
<script>
// Pairwise studies: keys 1-4 press "A is better", "B is better", "Tie", "Both bad" while the pair is
// on screen, except while typing in a text box (the note, the skip and flag boxes).
document.addEventListener('keydown', function (e) {
  if (!/^[1-4]$/.test(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
  var el = document.activeElement;
  if (el && (el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT' && /^(text|search|password|number)$/.test(el.type)))) return;
  var ids = ['pair-vote-a', 'pair-vote-b', 'pair-vote-tie', 'pair-vote-bothbad'];
  var btn = document.getElementById(ids[parseInt(e.key, 10) - 1]);
  if (!btn || btn.offsetParent === null || btn.disabled) return;
  e.preventDefault();
  btn.click();
});
</script>
<script>
// Radio groups are one Tab stop each, arrow keys inside (the ARIA radio-group pattern): Gradio renders
// every option as its own input, so every option was its own Tab stop (19 per response). Only the
// checked option (else the first) of a group takes Tab; arrows move to and pick the next or previous.
(function () {
  function groupOf(input) { return input.closest('fieldset') || input.closest('[role=radiogroup]'); }
  function radios(group) { return Array.from(group.querySelectorAll('input[type=radio]')); }
  function rove() {
    document.querySelectorAll('fieldset').forEach(function (group) {
      var list = radios(group);
      if (list.length < 2) return;
      var stop = list.find(function (r) { return r.checked; }) || list[0];
      list.forEach(function (r) { var want = r === stop ? '0' : '-1'; if (r.getAttribute('tabindex') !== want) r.setAttribute('tabindex', want); });
    });
  }
  new MutationObserver(rove).observe(document.documentElement, {childList: true, subtree: true, attributes: true, attributeFilter: ['class']});
  document.addEventListener('change', function (e) { if (e.target && e.target.type === 'radio') rove(); }, true);
  document.addEventListener('keydown', function (e) {
    var el = e.target;
    if (!el || el.type !== 'radio' || e.ctrlKey || e.metaKey || e.altKey) return;
    var step = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1}[e.key];
    if (!step) return;
    var group = groupOf(el);
    if (!group) return;
    var list = radios(group);
    var to = list[(list.indexOf(el) + step + list.length) % list.length];
    e.preventDefault();
    to.focus();
    to.click();
  }, true);
})();
// The blind question (after Submit, or after a pairwise vote): keys 1-3 pick response A-C (1-2 on a
// pair), 0 "Don't know", then on to the next question or the Send button.
document.addEventListener('keydown', function (e) {
  if (!/^[0-9]$/.test(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
  var fs = document.activeElement && document.activeElement.closest && document.activeElement.closest('#rate-guess fieldset, #pair-guess fieldset');
  if (!fs) return;
  var box = fs.closest('#rate-guess, #pair-guess');
  var inputs = Array.from(fs.querySelectorAll('input[type=radio]'));
  var target = e.key === '0' ? inputs[inputs.length - 1] : inputs[parseInt(e.key, 10) - 1];
  if (!target || (e.key !== '0' && target === inputs[inputs.length - 1])) return;
  e.preventDefault();
  target.click();
  var groups = Array.from(box.querySelectorAll('fieldset')).filter(function (g) { return g.offsetParent !== null; });
  var next = groups[groups.indexOf(fs) + 1];
  var to = next ? (next.querySelector('input[type=radio]:checked') || next.querySelector('input[type=radio]')) : document.querySelector('#' + box.id + '-send');
  if (to) to.focus();
});
</script>
<script>
// Gradio writes a toast's title (its type: "Error"), the names of its buttons (a toast's "Close", a
// table's "Copy table data" and "Fullscreen", a chart's tool bar) and its footer's name in English whatever the language:
// this Gradio has no translation key for them (gr.I18n only reaches the app's own texts). On a Chinese
// page (the browser's language, as Gradio's own choice of table) they are set here, again whenever
// Svelte sets one back (the copy button's name changes after a copy).
(function () {
  if (!(navigator.language || '').toLowerCase().startsWith('zh')) return;
  var TITLES = {error: '错误', warning: '警告', info: '提示', success: '成功'};
  var NAMES = {'Close': '关闭', 'Gradio footer navigation': 'Gradio 页脚导航', 'Table actions': '表格操作',
    'Copy table data': '复制表格数据', 'Copied to clipboard': '已复制到剪贴板', 'Fullscreen': '全屏',
    'Exit fullscreen mode': '退出全屏', 'Click to upload or drop files': '点击上传或拖放文件',
    // a chart's tool bar (plotly's own names)
    'Download plot as a png': '下载图表（PNG）', 'Download plot as a PNG': '下载图表（PNG）', 'Zoom': '缩放',
    'Pan': '平移', 'Box Select': '框选', 'Lasso Select': '套索选择', 'Zoom in': '放大', 'Zoom out': '缩小',
    'Autoscale': '自动缩放', 'Reset axes': '重置坐标轴', 'Reset view': '重置视图', 'Produced with Plotly.js': '由 Plotly.js 绘制'};
  function chinese() {
    document.querySelectorAll('.toast-title').forEach(function (title) {
      var type = Object.keys(TITLES).find(function (k) { return title.classList.contains(k); });
      var text = Array.from(title.childNodes).find(function (n) { return n.nodeType === 3 && n.data.trim(); });
      if (type && text && text.data.trim() !== TITLES[type]) text.data = TITLES[type] + ' ';
    });
    document.querySelectorAll('[aria-label], button[title], [data-title]').forEach(function (el) {
      ['aria-label', 'title', 'data-title'].forEach(function (attr) {
        var name = NAMES[el.getAttribute(attr)];
        if (name) el.setAttribute(attr, name);  // Chinese is not a key: no loop
      });
    });
  }
  new MutationObserver(chinese).observe(document.documentElement,
    {childList: true, subtree: true, attributes: true, attributeFilter: ['aria-label', 'title', 'data-title']});
})();
</script>
"""

# After the blind question is laid out: it stands where the responses were; bring it to the top and
# put the keyboard on its first choice.
FOCUS_GUESS_JS = """
() => {
  const box = document.querySelector('#rate-guess');
  if (!box || box.offsetParent === null) return;
  box.scrollIntoView({block: 'start'});
  const first = box.querySelector('fieldset input[type=radio]');
  if (first) first.focus({preventScroll: true});
}
"""

# After a reply: the prompt of the item on screen takes the keyboard. (Submit stays disabled from the
# click until the item has been on screen a moment: ui/rate/once.py.)
FOCUS_PROMPT_JS = """
() => {
  const status = document.querySelector('#rate-status');
  if (status && status.textContent.includes('Not saved')) return;  // stay by the marked rows
  const box = document.querySelector('#rate-prompt');  // the read-only textarea itself takes no focus
  if (box) { box.setAttribute('tabindex', '-1'); box.scrollIntoView({block: 'start'}); box.focus({preventScroll: true}); }
  if (window.arenaPager) window.arenaPager(0);  // the next item opens on response A
  // the guidelines were open for the first item: folded from the next one on, the answers come first
  const guide = document.querySelector('#rate-guide-box button.label-wrap.open');
  if (guide) guide.click();
}
"""

# Live "k of n scored": counts the checked score buttons in visible response columns, in the browser.
COUNT_JS = """
(...values) => {
  const slots = Array.from(document.querySelectorAll('#rate-responses > .rate-slot')).filter(s => s.offsetParent !== null);
  const rows = slots.flatMap(s => Array.from(s.querySelectorAll('fieldset')).filter(f => f.offsetParent !== null));
  const total = rows.length;  // the questions on screen: the study's own, whatever its rubric
  const done = rows.filter(f => f.querySelector('input[type=radio]:checked')).length;
  const zh = (navigator.language || '').toLowerCase().startsWith('zh');
  return total ? (zh ? `已评 ${done} / ${total}` : `${done} of ${total} scored`) : '';
}
"""


def shipped_css(*sheets: str) -> str:
    """The sheets joined, without their comments: a comment is for whoever reads this file, and the
    rating-only page must not name the other tabs (Compare, Organizer) even in its stylesheet."""
    return re.sub(r"/\*.*?\*/", "", "\n".join(sheets), flags=re.S)
