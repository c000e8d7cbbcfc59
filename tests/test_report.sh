#!/usr/bin/env bash
# tests/test_report.sh — `futexlab report`'s page in a real browser
# (headless Chromium, Debian's `chromium`), on a committed real quick-preset
# run (tests/data/quick.csv) and on two pooled real runs
# (results/pool/1.csv, 2.csv). Checks, without the browser: bad input is one
# line on stderr and exit 2 (not a futexlab CSV, an empty CSV, an
# unwritable -o, --pool with one file); the page fetches nothing (no src=,
# no <link>, no url(), no @import); `report --db`: a store of the three
# runs gives a page beside it naming them store:ID, its --pool part of the
# two pooled runs is the files' page's byte for byte, and a selection
# matching nothing, a missing store, --db with a file, --pool of one run
# are one line, exit 2. Then in the browser (--dump-dom of the
# page after its inline script ran, console to stderr; the page laid out
# in a window 1280 px wide, and again 1920 px wide):
#   - no console message at all (the page logs nothing: any line is an error
#     or an uncaught exception);
#   - every figure (figure.plot, one <svg> each) rendered with a non-zero
#     width and height (the script writes getBoundingClientRect into
#     data-rendered), their count as the command said, and >= 10;
#   - at 1280 and at 1920 px: no table cell, header, caption or summary
#     whose text is cut (scrollWidth/scrollHeight beyond its client box) or
#     that reaches past the window's right edge, and no two point labels of
#     a time-against-CPU plot overlapping (the page's script measures both);
#   - every point of the CSV has its section and a column in the matrix;
#   - every number of every point's ratio table (median ns, ratio, interval)
#     and of the summary matrix (ratio, interval) equals `futexlab compare
#     FILE --tsv`'s for the same (point, entry), rounded as the page rounds
#     (1 decimal for ns, 3 for ratios): |page - tsv| <= half a unit of the
#     page's last digit; so do the fastest per point's ratio and own time;
#   - every skipped row reads `skip` in its ratio table and in the matrix;
#   - the run's part opens with the fastest per point, then the matrix,
#     then the metadata in a closed <details>;
#   - the pooled page (1280 px): nothing cut or past the edge, no labels
#     overlapping; every pooled ratio equals `compare --pool --tsv`'s,
#     and so does every time ratio of its libraries table (the vs-libraries lines).
# Without chromium: the checks above the browser run, then exit 77 with the
# reason (never a pass). About 15-30 s (three browser runs).
# Usage: test_report.sh path/to/futexlab SOURCE_ROOT [RUN.csv]
# (RUN.csv instead of the fixture: e.g. results/latest.csv after scripts/bench)
set -u
. "$(dirname "$0")/lib.sh"
fl=$1 top=$2
csv=${3:-$top/tests/data/quick.csv}
scratch d report

# ---- without the browser ---------------------------------------------------
echo "hello,world" >"$d/bad.csv"
: >"$d/empty.csv"
refused "not a futexlab CSV" "" "$fl" report "$d/bad.csv" -o "$d/x.html"
refused "an empty CSV" "" "$fl" report "$d/empty.csv" -o "$d/x.html"
refused "an unwritable -o" "" "$fl" report "$csv" -o "$d/no/such/dir/x.html"
refused "--pool with one file" "" "$fl" report --pool "$csv" -o "$d/x.html"
refused "a missing baseline" "" "$fl" report "$csv" --baseline nosuch -o "$d/x.html"
"$fl" report "$csv" -o "$d/page.html" >"$d/said" || { echo "FAIL report exited $?"; exit 1; }
nfig=$(sed -n 's/^report: .* (\([0-9]*\) figures)$/\1/p' "$d/said")
check "the command names the page and its figures ($(cat "$d/said"))" test -n "$nfig"
check "the page fetches nothing (no src=, <link, url(, @import)" \
  sh -c "! grep -Eq '<(img|script|link|iframe)[^>]* (src|href)=|url\\(|@import' '$d/page.html'"
# every string from the CSV escaped: a metadata line and a note with markup
sed -e 's|^# cpu: .*|# cpu: <script>alert(1)</script> \& "q"|' \
    -e '0,/,skipped,[^,]*,/s//,skipped,<img src=x onerror=alert(2)>,/' "$csv" >"$d/markup.csv"
"$fl" report "$d/markup.csv" -o "$d/markup.html" >/dev/null
check "CSV strings escaped (no <script>alert, no <img src=x; &lt;script&gt; and &lt;img shown)" \
  sh -c "! grep -q '<script>alert\|<img src=x' '$d/markup.html' &&
         grep -q '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;' '$d/markup.html' &&
         grep -q '&lt;img src=x onerror=alert(2)&gt;' '$d/markup.html'"
"$fl" report "$csv" -o "$d/dir" >/dev/null
check "-o DIR writes DIR/index.html" test -s "$d/dir/index.html"
"$fl" compare "$csv" --tsv >"$d/tsv" || { echo "FAIL compare --tsv"; exit 1; }
"$fl" report --pool "$top/results/pool/1.csv" "$top/results/pool/2.csv" -o "$d/pool.html" \
  >/dev/null
"$fl" compare --pool "$top/results/pool/1.csv" "$top/results/pool/2.csv" --tsv >"$d/pool.tsv"

# ---- report --db: the page of a store's runs (no browser needed) -----------
"$fl" store add --db "$d/runs.db" "$csv" "$top/results/pool/1.csv" "$top/results/pool/2.csv" \
  >/dev/null 2>&1 || { echo "FAIL store add"; exit 1; }
"$fl" report --db "$d/runs.db" >"$d/said.db"; rc=$?
check "report --db: exit 0, the page beside the store ($(cat "$d/said.db"))" \
  test "$rc" = 0 -a -s "$d/runs.html"
check "report --db: the page names the store's three runs (store:ID)" \
  grep -q '^<p>Runs: store:[0-9], store:[0-9], store:[0-9]\.</p>$' "$d/runs.html"
"$fl" report --db "$d/runs.db" --rev 6ad2988 --pool -o "$d/dbpool.html" >/dev/null
pooled() { awk '/^<h2 id="pool">/ {p=1} /^<h2 id="(f1-)?run">/ {p=0} p' "$1"; }
pooled "$d/dbpool.html" >"$d/dbpool.part"; pooled "$d/pool.html" >"$d/pool.part"
check "report --db --pool: its pooled part ($(wc -l <"$d/dbpool.part") lines) is the files' page's" \
  eval 'test -s "$d/dbpool.part" && cmp -s "$d/dbpool.part" "$d/pool.part"'
refused "report --db: a selection matching no run" "" \
  "$fl" report --db "$d/runs.db" --rev nosuch -o "$d/x.html"
refused "report --db: a store that is not there" "" "$fl" report --db "$d/none.db" -o "$d/x.html"
refused "report --db and a file" "" "$fl" report --db "$d/runs.db" "$csv" -o "$d/x.html"
refused "report --db --pool of one run" "" "$fl" report --db "$d/runs.db" --last 1 --pool -o "$d/x.html"

# FUTEXLAB_CHROMIUM: the browser to use ("" : none, as on a machine without it)
chromium=${FUTEXLAB_CHROMIUM-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then
  echo "# $pass passed, $fail failed before the browser"
  [ "$fail" = 0 ] || exit 1
  skip_test report-browser "chromium is not installed (scripts/setup installs Debian's chromium)"
fi

# ---- in the browser ----------------------------------------------------------
browse() { # PAGE DOM LOG [WIDTH]: the page laid out in a window WIDTH px wide (1280)
  timeout 50 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --window-size="${4:-1280},2000" --hide-scrollbars \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d "$d/profile.XXXXXX")" --enable-logging=stderr --v=0 \
    --dump-dom "file://$1" >"$2" 2>"$3"
}
browse "$d/page.html" "$d/dom.html" "$d/log" || echo "FAIL chromium exited $?"
browse "$d/page.html" "$d/wide.dom" "$d/wide.log" 1920 || echo "FAIL chromium exited $? (1920)"
browse "$d/pool.html" "$d/pool.dom" "$d/pool.log" || echo "FAIL chromium exited $? (pool)"
python3 - "$d" "$nfig" <<'EOF'
import html.parser, re, sys
d, nfig = sys.argv[1], int(sys.argv[2] or 0)
fails = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)

class Page(html.parser.HTMLParser):
    """Figures, the ratio tables' cells and the matrix's, by class."""
    def __init__(self):
        super().__init__()
        self.figs, self.sections, self.cells, self.matrix, self.body = [], [], {}, {}, {}
        self.fast, self.status = {}, {}
        self.point = self.entry = self.cls = self.mcell = self.frow = None
        self.text = ''
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'body':
            self.body = a
        if tag == 'figure' and 'plot' in a.get('class', ''):
            self.figs.append((a.get('id'), a.get('data-rendered')))
        if tag == 'section' and 'data-point' in a:
            self.point = a['data-point']
            self.sections.append((self.point, 'pool' in a.get('class', '')))
        if tag == 'tr' and 'fast' in a.get('class', ''):
            self.frow = (a['data-point'], a['data-entry'])
        elif tag == 'tr' and 'data-entry' in a:
            self.entry = a['data-entry']
        if tag == 'td' and 'data-point' in a:
            self.mcell = (a['data-point'], a['data-entry'])
        if tag in ('td', 'span') and a.get('class', '').split()[:1] in (['ns'], ['ratio'], ['lo'], ['hi'], ['st']) \
           or self.mcell and tag == 'td':
            self.cls, self.text = (a.get('class') or 'td').split()[0], ''
            if self.cls in ('v0', 'v1', 'v2', 'v3'):
                self.cls = 'td'
    def handle_data(self, data):
        if self.cls:
            self.text += data
    def handle_endtag(self, tag):
        if self.cls and tag in ('td', 'span'):
            if self.frow:
                self.fast[self.frow + (self.cls,)] = self.text
            elif self.mcell:
                self.matrix[self.mcell + (self.cls,)] = self.text
                if self.cls == 'ratio':
                    self.matrix[self.mcell] = self.text
                    self.cls = 'td'  # the cell's own text goes on
                    return
            elif self.point and self.entry:
                pool = self.sections[-1][1]
                self.cells[(pool, self.point, self.entry, self.cls)] = self.text
            self.cls = None
        if tag == 'td':
            self.mcell = None
        if tag == 'tr':
            self.entry = self.frow = None

def load(dom):
    p = Page()
    p.feed(open(dom).read())
    return p

def console(log):
    return [l for l in open(log) if ':CONSOLE' in l]

def close(page, want, dec):
    try:
        return abs(float(page) - float(want)) <= 0.5 * 10 ** -dec + 1e-9
    except ValueError:
        return False

p = load(d + '/dom.html')
check(console(d + '/log') == [], 'no console message: %s' % console(d + '/log')[:2])
check(len(p.figs) == nfig and nfig >= 10, '%d figures in the browser, %d said, >= 10' % (len(p.figs), nfig))
check(p.body.get('data-figures') == str(len(p.figs)), "the page's script ran (body data-figures=%s)" % p.body.get('data-figures'))
bad = [f for f in p.figs if not re.fullmatch(r'[1-9]\d*x[1-9]\d*', f[1] or '')]
check(not bad, 'every figure has a non-zero rendered size (zero or none: %s)' % bad[:3])

def bounds(page, what):
    """No cell, header or caption cut or past the window's edge; no two point
    labels of a time-against-CPU plot overlapping (the page's script counts them)."""
    b = page.body
    check(b.get('data-overflow') == '0', '%s: no cell, header or caption cut or past the edge '
          '(%s: %s)' % (what, b.get('data-overflow'), b.get('data-overflows')))
    check(b.get('data-collisions') == '0', '%s: no overlapping labels in the time-against-CPU '
          'plots (%s pairs)' % (what, b.get('data-collisions')))

dom = open(d + '/dom.html').read()
at = [dom.find(x) for x in ('<table class="fastest"', '<table class="matrix"', '<details class="meta">')]
check(-1 not in at and at == sorted(at), 'the run\'s part: the fastest per point, then the '
      'matrix, then the metadata folded, closed (at %s)' % at)
bounds(p, 'at 1280 px')
w = load(d + '/wide.dom')
check(console(d + '/wide.log') == [], 'at 1920 px: no console message')
bounds(w, 'at 1920 px')

rows = [l.rstrip('\n').split('\t') for l in open(d + '/tsv')]
col = {n: i for i, n in enumerate(rows[0])}
rows = rows[1:]
points = sorted({r[col['point']] for r in rows})
secs = {s for s, pool in p.sections if not pool}
check(all(pt in secs for pt in points), 'every point of the CSV has its section (%d)' % len(points))
check(all(any(k[0] == pt for k in p.matrix) for pt in points), 'every point has a matrix column')
n = wrong = 0
for r in rows:
    if r[col['status']] != 'ok':
        continue
    pt, v = r[col['point']], r[col['variant']]
    want = [('ns', 'median_ns', 1), ('ratio', 'ratio', 3), ('lo', 'ratio_lo', 3), ('hi', 'ratio_hi', 3)]
    for cls, tc, dec in want:
        got = p.cells.get((False, pt, v, cls))
        if r[col[tc]] == '' or (cls in ('lo', 'hi') and r[col['verdict']] == 'baseline'):
            continue
        n += 1
        if got is None or not close(got, r[col[tc]], dec):
            wrong += 1
            if wrong <= 5:
                print('  %s / %s %s: page %s, tsv %s' % (pt, v, cls, got, r[col[tc]]))
    for key, tc in (((pt, v), 'ratio'), ((pt, v, 'lo'), 'ratio_lo'), ((pt, v, 'hi'), 'ratio_hi')):
        if not r[col[tc]] or (tc != 'ratio' and r[col['verdict']] == 'baseline'):
            continue
        n += 1
        got = p.matrix.get(key)
        if got is None or not close(got, r[col[tc]], 3):
            wrong += 1
            if wrong <= 5:
                print('  matrix %s / %s %s: page %s, tsv %s' % (pt, v, tc, got, r[col[tc]]))
check(n > 300 and wrong == 0, '%d numbers (ratio tables, the matrix\'s ratios and intervals) '
      'equal compare --tsv, %d differ' % (n, wrong))
byk = {(r[col['point']], r[col['variant']]): r for r in rows}
fw = [(k, t) for k, t in p.fast.items() if not close((t.split() or ['x'])[0],
      byk.get(k[:2], {col['ratio']: 'x'})[col['ratio' if k[2] == 'ratio' else 'median_ns']],
      3 if k[2] == 'ratio' else 1)]
nf = sum(1 for k in p.fast if k[2] == 'ratio')
check(nf >= len(points) - 2 and not fw, 'the fastest per point: %d ratios and own times equal '
      'compare --tsv (differ: %s)' % (nf, fw[:3]))
sk = [(r[col['point']], r[col['variant']]) for r in rows if r[col['status']] == 'skipped']
sw = [k for k in sk if p.cells.get((False,) + k + ('st',)) != 'skip' or p.matrix.get(k + ('td',)) != 'skip']
check(sk and not sw, '%d skipped rows read skip in their ratio table and the matrix (not: %s)'
      % (len(sk), sw[:3]))

q = load(d + '/pool.dom')
check(console(d + '/pool.log') == [], 'pooled page: no console message')
bad = [f for f in q.figs if not re.fullmatch(r'[1-9]\d*x[1-9]\d*', f[1] or '')]
check(len(q.figs) >= 10 and not bad, 'pooled page: %d figures, all rendered' % len(q.figs))
bounds(q, 'pooled page at 1280 px')
prow = [l.rstrip('\n').split('\t') for l in open(d + '/pool.tsv')][1:]
lrow = [r for r in prow if r[0] == 'vs-libraries']
prow = [r for r in prow if not r[0].startswith('vs-libraries')]
pw = [r for r in prow if r[3] and q.cells.get((True, r[0], r[1], 'ratio')) != r[3]]
check(prow and not pw, 'pooled page: %d pooled ratios equal compare --pool --tsv (%d differ)' % (len(prow), len(pw)))
lw = [r for r in lrow if q.cells.get((True, 'vs-libraries', r[1], 'ratio')) != r[5]]
check(lrow and not lw, 'pooled page: the libraries table, %d time ratios equal the vs-libraries lines (%d differ)' % (len(lrow), len(lw)))
sys.exit(1 if fails else 0)
EOF
rc=$?
[ "$rc" = 0 ] || fail=$((fail+1))
echo "# $pass passed, $fail failed (shell checks; the browser's above)"
[ "$fail" = 0 ]
