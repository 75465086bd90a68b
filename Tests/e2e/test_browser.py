"""The preview page in headless Chromium against a real `kiln serve`.

Screenshots of every step go to $KILN_ARTIFACTS (default .build/artifacts/browser).
"""
import json
import os
import pathlib
import shutil
import time
import urllib.request

import pytest

from conftest import KilnServer, ROOT

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402

ARTIFACTS = pathlib.Path(os.environ.get("KILN_ARTIFACTS", ROOT / ".build" / "artifacts")) / "browser"

CANVAS_DIGEST = """
const c = document.getElementById('canvas');
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
let h = 0, distinct = new Set();
for (let i = 0; i < d.length; i += 4 * 97) { h = (h * 31 + d[i] + d[i+1] * 3 + d[i+2] * 7 + d[i+3] * 11) >>> 0; distinct.add(d[i] << 16 | d[i+1] << 8 | d[i+2]); }
return [h, distinct.size, c.width, c.height];
"""


def chrome_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture
def browser():
    if not chrome_binary() or not shutil.which("chromedriver"):
        pytest.skip("chromium and chromium-driver are not installed")
    options = webdriver.ChromeOptions()
    options.binary_location = chrome_binary()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_script_timeout(10)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


def wait_for(predicate, timeout=15, interval=0.1, message="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            value = predicate()
        except StaleElementReferenceException:
            # The page re-rendered the element between finding and reading it: look again.
            value = None
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {message}")


def digest(driver):
    return driver.execute_script(CANVAS_DIGEST)


def set_source(driver, text):
    driver.execute_script("""
        const ta = document.getElementById('source');
        ta.value = arguments[0];
        ta.dispatchEvent(new Event('input'));
    """, text)


def test_page_end_to_end(browser):
    server = KilnServer().start()
    try:
        browser.get(server.http + "/")
        # 1. The default shader previews: non-constant pixels that change over time.
        first = wait_for(lambda: (d := digest(browser)) and d[1] > 8 and d, message="a non-constant frame")
        second = wait_for(lambda: (d := digest(browser)) and d[0] != first[0] and d, message="an animated frame")
        assert second[1] > 8
        browser.save_screenshot(str(ARTIFACTS / "1-loaded.png"))

        # 2. An error marks the right line and the last frame stays.
        good = browser.execute_script("return window.kiln.editor.text")
        lines = good.split("\n")
        broken_line = next(i for i, l in enumerate(lines) if "return" in l)
        lines[broken_line] = lines[broken_line].replace("return", "retrun", 1)
        set_source(browser, "\n".join(lines))
        marker = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#gutter div.error"), message="an error marker")
        assert int(marker[0].text) == broken_line + 1
        assert browser.find_elements(By.CSS_SELECTOR, "#problems li.error")
        assert browser.find_elements(By.CSS_SELECTOR, "#highlight .squiggle")
        time.sleep(0.5)
        still = digest(browser)
        assert still[1] > 8, "the last good frame must stay on screen"
        browser.save_screenshot(str(ARTIFACTS / "2-error.png"))

        # 3. Fixing it resumes the preview.
        set_source(browser, good)
        wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, "#gutter div.error"), message="markers cleared")
        after_fix = digest(browser)
        wait_for(lambda: digest(browser)[0] != after_fix[0], message="frames after the fix")
        browser.save_screenshot(str(ARTIFACTS / "3-fixed.png"))

        # 4. Moving a slider changes the frame (pause first so only the argument changes).
        browser.find_element(By.ID, "play").click()
        time.sleep(0.5)
        paused = digest(browser)
        slider = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#arguments input[type=range]"), message="a slider")[-1]
        browser.execute_script("arguments[0].value = arguments[0].max; arguments[0].dispatchEvent(new Event('input'))", slider)
        wait_for(lambda: digest(browser)[0] != paused[0], message="a frame after the slider moved")
        browser.save_screenshot(str(ARTIFACTS / "4-slider.png"))

        # 5. An uploaded PNG appears under the effect.
        before_upload = digest(browser)
        browser.find_element(By.ID, "upload").send_keys(str(ROOT / "Tests" / "Conformance" / "content" / "checker.png"))
        wait_for(lambda: digest(browser)[2:] == [128, 128], message="a frame of the uploaded image's size")
        assert digest(browser)[0] != before_upload[0]
        browser.save_screenshot(str(ARTIFACTS / "5-upload.png"))

        # 6. A server restart: the page reconnects, the text is unchanged, frames resume.
        text_before = browser.execute_script("return window.kiln.editor.text")
        port = server.port
        server.stop()
        wait_for(lambda: "retrying" in browser.find_element(By.ID, "connection").text, message="the offline state")
        browser.save_screenshot(str(ARTIFACTS / "6-offline.png"))
        server = KilnServer(port=port).start()
        wait_for(lambda: browser.find_element(By.ID, "connection").text == "connected", timeout=20, message="reconnection")
        assert browser.execute_script("return window.kiln.editor.text") == text_before
        browser.find_element(By.ID, "play").click()
        resumed = digest(browser)
        wait_for(lambda: digest(browser)[0] != resumed[0], message="frames after reconnecting")
        browser.save_screenshot(str(ARTIFACTS / "7-reconnected.png"))

        # 7. A reload keeps the text.
        browser.refresh()
        wait_for(lambda: browser.execute_script("return window.kiln && window.kiln.editor.text") == text_before, message="text after reload")
        wait_for(lambda: digest(browser)[1] > 8, message="a frame after reload")
        browser.save_screenshot(str(ARTIFACTS / "8-reloaded.png"))
    finally:
        server.stop()


def open_scene_mode(browser, server):
    """Opens the page, waits for the shader preview, switches to scene mode (the map
    example) and returns its layer rows, topmost first."""
    browser.get(server.http + "/")
    wait_for(lambda: digest(browser)[1] > 8, message="the shader preview")
    browser.find_element(By.ID, "mode-scene").click()
    return wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#layers .layer"), message="the layer list")


def test_scene_mode(browser):
    server = KilnServer().start()
    try:
        # The map example: layers listed topmost first, a frame of the scene's size.
        rows = open_scene_mode(browser, server)
        ids = [row.get_attribute("data-id") for row in rows]
        assert len(ids) >= 4, ids
        first = wait_for(lambda: (d := digest(browser)) and d[2:] == [512, 384] and d, message="a scene frame")
        browser.save_screenshot(str(ARTIFACTS / "9-scene.png"))
        # Hiding the top layer changes the picture.
        rows[0].find_element(By.CSS_SELECTOR, "input[type=checkbox]").click()
        wait_for(lambda: digest(browser)[0] != first[0], message="a frame without the hidden layer")
        hidden = digest(browser)
        # Moving a layer down (↓) reorders the document and redraws.
        order = browser.execute_script("return window.kiln.scenePanel.document.layers.map(l => l.id)")
        rows = browser.find_elements(By.CSS_SELECTOR, "#layers .layer")
        rows[1].find_element(By.CSS_SELECTOR, "button[data-move=down]").click()
        wait_for(lambda: browser.execute_script("return window.kiln.scenePanel.document.layers.map(l => l.id)") != order,
                 message="a new layer order")
        # A paint control sends layer.update and the frame changes.
        slider = browser.find_elements(By.CSS_SELECTOR, "#layers input[type=range]")[0]
        browser.execute_script("arguments[0].value = arguments[0].min; arguments[0].dispatchEvent(new Event('input'))", slider)
        wait_for(lambda: digest(browser)[0] != hidden[0], message="a frame after a paint change")
        browser.save_screenshot(str(ARTIFACTS / "10-scene-edited.png"))
        # A broken document is reported with its JSON path and the last frame stays.
        set_source(browser, '{"width": 64, "height": 64, "layers": [{"id": "x", "type": "fill", "source": "nope"}]}')
        problem = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#problems li.error"), message="a scene problem")
        assert "layers[0]" in problem[0].text
        assert digest(browser)[2:] == [512, 384]
    finally:
        server.stop()


def test_names_from_documents_are_text_not_markup(browser):
    """Layer ids come from a user's scene document: the layer panel shows them as text
    (and in aria labels), never as markup that runs."""
    server = KilnServer().start()
    try:
        browser.get(server.http + "/")
        wait_for(lambda: digest(browser)[1] > 8, message="the shader preview")
        browser.find_element(By.ID, "mode-scene").click()
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#layers .layer"), message="the layer list")
        hostile = '<img src=x onerror="window.pwned=1">" data-x="'
        scene = ('{"width": 32, "height": 32, "layers": [{"id": %s, "type": "background", "paint": {"background-color": "#336699"}}]}'
                 % __import__("json").dumps(hostile))
        set_source(browser, scene)
        name = wait_for(lambda: [e for e in browser.find_elements(By.CSS_SELECTOR, "#layers .layer-name") if e.text == hostile],
                        message="the hostile id shown as text")
        assert name
        assert browser.find_elements(By.CSS_SELECTOR, "#layers img") == []
        assert browser.execute_script("return window.pwned === undefined")
        box = browser.find_element(By.CSS_SELECTOR, "#layers input[type=checkbox]")
        assert box.get_attribute("aria-label") == "Show " + hostile
    finally:
        server.stop()


DEBUG_SHADER = """#include <metal_stdlib>
using namespace metal;

float bump(float x, float k) {
    float y = x * k;
    return y * y;
}

/// @arg gain 0...2 = 1 "brightness"
[[ stitchable ]] half4 loopy(float2 position, float gain) {
    float sum = 0.0;
    int n = int(position.x / 16.0) % 5;
    for (int i = 0; i < n; i++) {
        sum += bump(float(i), 0.5);
    }
    float shade = gain * sum / 4.0;
    return half4(shade, position.y / 512.0, 0.25, 1.0);
}
"""

CANVAS_PIXEL = """
const c = document.getElementById('canvas');
return Array.from(c.getContext('2d').getImageData(arguments[0], arguments[1], 1, 1).data);
"""


def open_with_source(browser, server, source, function):
    """Opens the page, waits for its first frame, then puts `source` in the editor and waits
    until `function` is the selected entry (the edit compiled)."""
    browser.get(server.http + "/")
    wait_for(lambda: digest(browser)[1] > 8, message="the first frame")
    set_source(browser, source)
    wait_for(lambda: browser.execute_script("return document.getElementById('function').value") == function,
             message="the shader compiled")


def test_pixel_debugger(browser):
    """Click a pixel, step through its loop, watch values and the editor line move; the
    colour the panel reports is the pixel read back from the canvas."""
    server = KilnServer().start()
    try:
        open_with_source(browser, server, DEBUG_SHADER, "loopy")
        browser.find_element(By.ID, "play").click()        # pause: one picture to look at
        wait_for(lambda: browser.execute_script("return window.kiln.frames.canvas.width") == 512, message="a 512² frame")
        # The paused picture is loopy's (blue is 0.25 everywhere). Under CI load it once
        # stayed the previous shader's: a frame of the old function failed on the new library
        # after the page had named loopy, and that stale failure stopped the stream
        # (SessionResponderTests.aFailureOfReplacedSettingsNeitherStopsNorReports).
        wait_for(lambda: browser.execute_script(CANVAS_PIXEL, 70, 100)[2] == 64, message="loopy's picture on the canvas")
        time.sleep(0.5)

        # Click pixel (70, 100) of the 512² canvas, whatever size it is drawn at: n = 4 there.
        canvas = browser.find_element(By.ID, "canvas")
        browser.execute_script("""
            const c = arguments[0], r = c.getBoundingClientRect();
            c.dispatchEvent(new MouseEvent('click', { bubbles: true,
                clientX: r.left + (70.5 / c.width) * r.width, clientY: r.top + (100.5 / c.height) * r.height }));
        """, canvas)
        summary = wait_for(lambda: (t := browser.find_element(By.ID, "debug-summary").text) and "steps" in t and t,
                           message="the trace")
        assert "pixel (70, 100)" in summary
        report = browser.execute_script("return window.kiln.pixelDebugger.report")
        assert report["pixel"] == browser.execute_script(CANVAS_PIXEL, 70, 100), "the trace must end in the canvas pixel"
        browser.save_screenshot(str(ARTIFACTS / "9-debugger.png"))

        # Step forward through the loop: the editor's current line and the values move.
        seen_lines, sums, iterations = set(), [], set()
        for _ in range(40):
            line = int(browser.find_element(By.CSS_SELECTOR, "#gutter div.current").text)
            seen_lines.add(line)
            step = browser.find_element(By.ID, "debug-step").text
            if "iteration" in step:
                iterations.add(int(step.split("iteration ")[-1].split(" ")[0]))
            rows = {r.find_element(By.TAG_NAME, "th").text: r.text for r in browser.find_elements(By.CSS_SELECTOR, "#debug-variables tr") if r.find_elements(By.TAG_NAME, "th")}
            if "sum" in rows and (not sums or sums[-1] != rows["sum"]):
                sums.append(rows["sum"])
            browser.find_element(By.ID, "debug-forward").click()
        assert {13, 14, 5, 6} <= seen_lines, seen_lines                    # the loop, the call, the helper
        assert iterations >= {1, 2, 3, 4}, iterations
        assert any("3.5" in s for s in sums) and len(sums) >= 3, sums       # 0 + 0 + .25 + 1 + 2.25
        browser.save_screenshot(str(ARTIFACTS / "10-debugger-stepped.png"))

        # "Run to caret line": put the caret on the `float shade` line and jump there.
        browser.execute_script("""
            const ta = document.getElementById('source');
            const at = ta.value.indexOf('float shade');
            ta.setSelectionRange(at, at);
        """)
        browser.find_element(By.ID, "debug-to-caret").click()
        wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#gutter div.current").text == "16", message="line 16")
        rows = browser.find_element(By.ID, "debug-variables").text
        assert "shade" in rows and "0.875" in rows, rows                     # 3.5 / 4

        # Changing an argument traces the same pixel again.
        slider = browser.find_element(By.CSS_SELECTOR, "#arguments input[type=range]")
        browser.execute_script("arguments[0].value = 2; arguments[0].dispatchEvent(new Event('input'))", slider)
        wait_for(lambda: "1.75" in browser.find_element(By.ID, "debug-variables").text, message="the re-trace")
        report = browser.execute_script("return window.kiln.pixelDebugger.report")
        assert report["pixel"][0] == 255, report                             # 1.75 saturates red
        # The frame drawn with the new argument can reach the canvas after the re-trace (a
        # fixed 0.3 s wait lost that race on a loaded machine): wait until the picture
        # shows the traced pixel; if they never agree, this fails.
        wait_for(lambda: browser.execute_script(CANVAS_PIXEL, 70, 100) == report["pixel"],
                 message="the canvas to show the traced pixel")
        browser.save_screenshot(str(ARTIFACTS / "11-debugger-argument.png"))

        # The cost heatmap: over the preview, numbers under the cursor, shares in the gutter.
        browser.find_element(By.ID, "cost").click()
        wait_for(lambda: browser.find_element(By.ID, "heat").is_displayed(), message="the heatmap")
        wait_for(lambda: "instructions per pixel" in browser.find_element(By.ID, "heat-readout").text, message="its summary")
        costs = browser.execute_script("""
            const m = window.kiln.costOverlay.map;
            return [m.counts[100 * m.width + 10], m.counts[100 * m.width + 70], m.maximum];
        """)
        assert costs[0] < costs[1] <= costs[2], costs                       # n = 0 at x = 10, 4 at x = 70
        shares = browser.find_elements(By.CSS_SELECTOR, "#gutter div .share")
        lines = {int(s.find_element(By.XPATH, "..").text) for s in shares}
        assert {13, 14} <= lines, lines                                     # the loop's lines have a share
        browser.execute_script("""
            const c = document.getElementById('heat'), r = c.getBoundingClientRect();
            c.parentElement.dispatchEvent(new MouseEvent('mousemove', { bubbles: true,
                clientX: r.left + (70.5 / c.width) * r.width, clientY: r.top + (100.5 / c.height) * r.height }));
        """)
        assert browser.find_element(By.ID, "heat-readout").text.startswith(f"(70, 100): {costs[1]} instructions")
        browser.save_screenshot(str(ARTIFACTS / "12-heatmap.png"))
        browser.find_element(By.ID, "cost").click()
        wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, "#gutter div .share"), message="shares cleared")
    finally:
        server.stop()


def test_share_link_opens_the_same_state(browser):
    """Share from the page, open the link: the same source, argument and time; the first
    edit makes it the user's own copy (the address goes back to /)."""
    server = KilnServer().start()
    try:
        open_with_source(browser, server, DEBUG_SHADER, "loopy")
        slider = wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#arguments input[type=range]"), message="a slider")[0]
        browser.execute_script("arguments[0].value = 1.5; arguments[0].dispatchEvent(new Event('input'))", slider)
        browser.find_element(By.ID, "play").click()
        time.sleep(0.5)
        browser.find_element(By.ID, "share").click()
        url = wait_for(lambda: (v := browser.find_element(By.ID, "share-url").get_attribute("value")) and "/s/" in v and v,
                       message="the link")
        # The time the page stored at the click: the clock plays on while the link comes back,
        # so the page's time now may already be a later frame's.
        with urllib.request.urlopen(url + "?format=json") as response:
            shared_time = json.load(response)["time"]
        browser.save_screenshot(str(ARTIFACTS / "13-shared.png"))

        browser.execute_script("localStorage.clear()")      # a different visitor
        browser.get(url)
        wait_for(lambda: browser.execute_script("return window.kiln && window.kiln.editor.text") == DEBUG_SHADER,
                 message="the shared source")
        assert browser.find_element(By.ID, "shared-banner").is_displayed()
        wait_for(lambda: digest(browser)[1] > 2, message="a frame of the shared shader")
        assert browser.execute_script("return window.kiln.state.args.loopy.gain") in (1.5, [1.5])
        wait_for(lambda: abs(browser.execute_script("return window.kiln.frames.lastTime") - shared_time) < 1e-6,
                 message="the shared time")
        browser.save_screenshot(str(ARTIFACTS / "14-opened-link.png"))
        set_source(browser, DEBUG_SHADER.replace("0.25, 1.0", "0.5, 1.0"))
        wait_for(lambda: browser.execute_script("return location.pathname") == "/", message="the fork")
        assert not browser.find_element(By.ID, "shared-banner").is_displayed()
    finally:
        server.stop()


def test_history_lists_compare_and_restore(browser):
    """Each version that compiled is listed; choosing an older one shows what changed, and
    Restore puts it back in the editor."""
    server = KilnServer().start()
    try:
        open_with_source(browser, server, DEBUG_SHADER, "loopy")
        edited = DEBUG_SHADER.replace("0.25, 1.0", "0.75, 1.0")
        set_source(browser, edited)
        wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, "#history li")) >= 2, message="two versions")
        time.sleep(0.5)                                           # the list re-renders after each compile
        browser.execute_script("document.querySelectorAll('#history li')[1].click()")   # the older: DEBUG_SHADER
        diff = wait_for(lambda: (t := browser.find_element(By.ID, "history-diff").text) and t, message="the diff")
        assert "- " in diff and "0.75" in diff and "+ " in diff and "0.25" in diff, diff
        browser.execute_script("document.getElementById('history-diff').scrollIntoView()")
        browser.save_screenshot(str(ARTIFACTS / "15-history.png"))
        browser.find_element(By.ID, "history-restore").click()
        wait_for(lambda: browser.execute_script("return window.kiln.editor.text") == DEBUG_SHADER, message="the restore")
    finally:
        server.stop()


def test_watch_link_shows_the_live_session_read_only(browser):
    """The editor hands out a watch link; a second tab opened at it shows the editor's text
    read-only with the editor's line marked and the same picture, and follows an edit."""
    server = KilnServer().start()
    try:
        open_with_source(browser, server, DEBUG_SHADER, "loopy")
        editor_tab = browser.current_window_handle
        browser.find_element(By.ID, "watch").click()
        url = wait_for(lambda: (v := browser.find_element(By.ID, "watch-url").get_attribute("value")) and "/w/" in v and v,
                       timeout=30, message="the watch link")
        browser.switch_to.new_window("tab")
        browser.get(url)
        wait_for(lambda: browser.execute_script("return window.kiln && window.kiln.editor.text") == DEBUG_SHADER,
                 timeout=30, message="the watched source")
        assert browser.execute_script("return document.getElementById('source').readOnly")
        assert browser.find_element(By.ID, "watch-banner").is_displayed()
        assert browser.execute_script("return document.body.classList.contains('spectating')")   # controls disabled
        wait_for(lambda: digest(browser)[1] > 2, timeout=30, message="the watched picture")
        browser.save_screenshot(str(ARTIFACTS / "16-spectator.png"))

        browser.switch_to.window(editor_tab)
        wait_for(lambda: browser.find_element(By.ID, "watch-count").text == "1 watching", timeout=30, message="the count")
        edited = DEBUG_SHADER.replace("0.25, 1.0", "0.5, 1.0")
        set_source(browser, edited)
        browser.execute_script("""
            const ta = document.getElementById('source');
            ta.selectionStart = ta.selectionEnd = ta.value.indexOf('return');
            ta.dispatchEvent(new Event('keyup'));
        """)
        line = browser.execute_script("return window.kiln.editor.caretLine()")
        browser.switch_to.window([h for h in browser.window_handles if h != editor_tab][0])
        wait_for(lambda: browser.execute_script("return window.kiln.editor.text") == edited, timeout=30, message="the edit, live")
        wait_for(lambda: browser.execute_script("return window.kiln.editor.currentLine") == line, timeout=30, message="the cursor line")
        browser.save_screenshot(str(ARTIFACTS / "17-spectator-follows.png"))
    finally:
        server.stop()


def test_watch_link_follows_a_scene(browser):
    """In scene mode the watch link shows the scene document read-only and the scene's
    frames; hiding a layer in the editor's tab reaches the spectator's picture."""
    server = KilnServer().start()
    try:
        rows = open_scene_mode(browser, server)
        wait_for(lambda: (d := digest(browser)) and d[2:] == [512, 384], message="a scene frame")
        editor_tab = browser.current_window_handle
        browser.find_element(By.ID, "watch").click()
        url = wait_for(lambda: (v := browser.find_element(By.ID, "watch-url").get_attribute("value")) and "/w/" in v and v,
                       timeout=30, message="the watch link")
        browser.switch_to.new_window("tab")
        browser.get(url)
        wait_for(lambda: '"layers"' in (browser.execute_script("return window.kiln && window.kiln.editor.text") or ""),
                 timeout=30, message="the watched scene document")
        watched = wait_for(lambda: (d := digest(browser)) and d[2:] == [512, 384] and d, timeout=30, message="the scene's frame")
        assert browser.find_element(By.ID, "kind").text == "scene"
        browser.save_screenshot(str(ARTIFACTS / "18-spectator-scene.png"))
        browser.switch_to.window(editor_tab)
        rows[0].find_element(By.CSS_SELECTOR, "input[type=checkbox]").click()
        browser.switch_to.window([h for h in browser.window_handles if h != editor_tab][0])
        wait_for(lambda: digest(browser)[0] != watched[0], timeout=30, message="the edited scene, live")
        assert '"visible":false' in browser.execute_script("return window.kiln.editor.text").replace(" ", "")
    finally:
        server.stop()
