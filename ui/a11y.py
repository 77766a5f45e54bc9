"""Page-wide CSS for WCAG AA contrast (axe-core's color-contrast rule, tests/e2e/test_a11y_e2e.py).

Gradio's default theme draws white text on orange primary/stop buttons (about 2.8:1) and its
"subdued" grey (info lines, slider maxima, the upload "- or -", the footer) below 4.5:1 on white. We
override only those theme variables, in light mode (Gradio puts `.dark` on the page for dark mode,
whose colours pass). app.py appends `CSS` to the page CSS it passes to `launch(css=...)`.
"""

from __future__ import annotations

CSS = """
body:not(.dark) .gradio-container, body:not(.dark) footer {
  --body-text-color-subdued: #52525b;
  --block-info-text-color: #52525b;
  --input-placeholder-color: #52525b;
  --button-primary-background-fill: #c2410c;
  --button-primary-background-fill-hover: #9a3412;
  --button-primary-text-color: #ffffff;
  --button-primary-text-color-hover: #ffffff;
  --button-cancel-background-fill: #b91c1c;
  --button-cancel-background-fill-hover: #991b1b;
  --button-cancel-text-color: #ffffff;
  --button-cancel-text-color-hover: #ffffff;
}
body:not(.dark) footer, body:not(.dark) footer a, body:not(.dark) footer button { color: #52525b; }
#results-table th, #results-table th * { word-break: keep-all; overflow-wrap: normal; hyphens: none; }
"""
