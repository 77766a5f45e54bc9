import re
import sys

from playwright.sync_api import sync_playwright

url = sys.argv[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
    page = b.new_page(viewport={"width": 1500, "height": 1100})
    page.set_default_timeout(300_000)
    page.goto(url, wait_until="domcontentloaded")
    page.get_by_role("tab", name="Results").first.click()
    panel = page.get_by_role("tabpanel")
    panel.get_by_label("Study", exact=True).click()
    page.get_by_role("option", name=re.compile("Three scenarios")).first.click()
    panel.get_by_role("button", name="Show results").click()
    page.get_by_text("ratings by").first.wait_for()
    page.get_by_text("perplexity under").first.wait_for()
    page.wait_for_timeout(3000)
    page.screenshot(path="/work/main/artifacts/results-tab.png", full_page=True)
    page.get_by_text("Statistics", exact=True).first.click()
    page.wait_for_timeout(2000)
    page.get_by_text("Statistics", exact=True).first.scroll_into_view_if_needed()
    page.screenshot(path="/work/main/artifacts/results-stats.png", full_page=True)
    page.get_by_text("Statistics", exact=True).first.click()
    page.get_by_label(re.compile("Presentation view")).check()
    page.wait_for_timeout(2000)
    page.screenshot(path="/work/main/artifacts/results-present.png", full_page=True)
    b.close()
print("done")
