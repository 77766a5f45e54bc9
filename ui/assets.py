"""Page-wide CSS and script, passed to `launch(css=..., head=...)` by app.py.

The script adds what Gradio's components do not: accessible names on the score groups, hotkeys
(1-5 score the focused group, 0 answers "can't judge", Ctrl+Enter submits), and, after a submit, bringing the next item's
prompt into view with focus. Nothing is stored in the browser.
"""

from __future__ import annotations

CSS = """
#rate-responses { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 12px; }
#rate-responses > .rate-slot { min-width: 0; }
.rate-slot fieldset .wrap, .rate-slot [role=radiogroup] .wrap { flex-wrap: nowrap !important; }
.rate-slot fieldset label { min-width: 2.4em; justify-content: center; }
.rate-missing fieldset, fieldset.rate-missing { outline: 2px solid #b42318; outline-offset: 2px; border-radius: 6px; }
/* Submit stays on screen: a bar fixed to the bottom of the window while the Rate tab is open
   (sticky positioning does not hold inside Gradio's containers). */
#rate-submit-row { position: fixed; left: 0; right: 0; bottom: 0; z-index: 20; margin: 0;
                   background: var(--background-fill-primary); padding: 8px 16px;
                   border-top: 1px solid var(--border-color-primary); box-shadow: 0 -2px 8px rgba(0,0,0,.08); }
#rate-status { padding-bottom: 72px; }
.rate-response-title { font-size: 1rem; font-weight: 600; margin: 0 0 6px; }
.rate-response-body { border: 1px solid var(--border-color-primary); border-radius: 6px; padding: 8px 12px;
                      overflow-wrap: anywhere; }
.rate-response-body pre { white-space: pre-wrap; }
.rate-response-body .md-image { color: var(--body-text-color-subdued); font-style: italic; }
@media (max-width: 640px) {
  #rate-responses { display: flex !important; flex-wrap: nowrap !important; overflow-x: auto;
                    scroll-snap-type: x mandatory; gap: 8px; }
  #rate-responses > .rate-slot { flex: 0 0 88% !important; min-width: 88% !important; scroll-snap-align: start; }
}
"""

HEAD = """
<script>
(function () {
  function nameGroups() {
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
  new MutationObserver(nameGroups).observe(document.documentElement, {childList: true, subtree: true});
  document.addEventListener('keydown', function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      var btn = document.querySelector('#rate-submit');
      if (btn && btn.offsetParent !== null) { e.preventDefault(); btn.click(); }
      return;
    }
    if (!/^[0-5]$/.test(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
    var fs = document.activeElement && document.activeElement.closest && document.activeElement.closest('.rate-slot fieldset');
    if (!fs) return;
    var inputs = fs.querySelectorAll('input[type=radio]');
    var target = inputs[e.key === '0' ? 5 : parseInt(e.key, 10) - 1];  // the sixth button: can't judge
    if (target) { e.preventDefault(); target.click(); target.focus(); }
  });
})();
</script>
"""

FOCUS_PROMPT_JS = """
() => {
  const status = document.querySelector('#rate-status');
  if (status && status.textContent.includes('Not saved')) return;  // stay by the marked rows
  const box = document.querySelector('#rate-prompt');  // the read-only textarea itself takes no focus
  if (box) { box.setAttribute('tabindex', '-1'); box.scrollIntoView({block: 'start'}); box.focus({preventScroll: true}); }
}
"""

# Live "k of n scored": counts the checked score buttons in visible response columns, in the browser.
COUNT_JS = """
(...values) => {
  const slots = Array.from(document.querySelectorAll('#rate-responses > .rate-slot')).filter(s => s.offsetParent !== null);
  const total = slots.length * 3;
  const done = slots.reduce((n, s) => n + s.querySelectorAll('input[type=radio]:checked').length, 0);
  return total ? `${done} of ${total} scored` : '';
}
"""
