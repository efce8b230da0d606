#!/usr/bin/env bash
# check-class-html.sh -- the class summary page renders in a real browser.
#
# Takes the page check-class-report.sh writes (running it first when the page is
# not there), renders it with headless Chromium into build/class-summary.png, and
# checks the screenshot is a PNG of the window's size with something drawn in it.
# Prints SKIP, with the reason, when Chromium is missing and cannot be installed
# (installing needs root and apt-get).
set -u
cd "$(dirname "$0")/../.." || exit 2
. grading/tests/lib-test.sh
html=build/class-report-test/class.html
png=build/class-summary.png
width=1400 height=1000

find_chromium() {
    local name
    for name in chromium chromium-browser google-chrome; do
        command -v "$name" >/dev/null 2>&1 && { command -v "$name"; return 0; }
    done
    return 1
}
browser=$(find_chromium)
if [ -z "$browser" ]; then
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        t_skip "no chromium, and installing it needs root and apt-get"
        t_summary; exit
    fi
    t_say "installing chromium (apt-get)"
    { apt-get install -y chromium || { apt-get update && apt-get install -y chromium; }; } >build/chromium-install.log 2>&1
    browser=$(find_chromium) || {
        t_skip "chromium could not be installed (see build/chromium-install.log)"
        t_summary; exit
    }
fi

if [ ! -s "$html" ]; then
    bash grading/tests/check-class-report.sh >/dev/null || t_abort "check-class-report.sh failed"
fi
rm -f "$png"
# --no-sandbox: root in a container has no user namespaces for the sandbox.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --screenshot="$PWD/$png" --window-size=$width,$height "file://$PWD/$html" >build/chromium.log 2>&1
status=$?
[ -s "$png" ] || t_abort "no screenshot (chromium exit $status, see build/chromium.log)"

# The PNG signature, then the IHDR chunk's width and height (big-endian, bytes 17-24).
signature=$(od -An -tx1 -N8 "$png" | tr -d ' \n')
size=$(od -An -tu1 -j16 -N8 "$png" | awk '{ print $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }')
bytes=$(wc -c < "$png")
if [ "$signature" = 89504e470d0a1a0a ]; then t_pass; else t_fail "$png is not a PNG"; fi
if [ "$size" = "$width $height" ]; then t_pass; else t_fail "$png is $size, expected $width $height"; fi
# A blank 1400x1000 page compresses to a few KiB; the summary's text, bars and grid do not.
if [ "$bytes" -gt 30000 ]; then t_pass; else t_fail "$png is only $bytes bytes: a blank page?"; fi
t_summary check-class-html "$png, ${size/ /x}, $bytes bytes"
