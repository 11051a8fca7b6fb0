'use strict'

const USAGE = `Usage: nodebench <command>

Commands:
  bench [options] [<app>]
                         a workload's load matrix on an app (default: the study's): results.json,
                         report.md and report.html (charts) in --out (default runs/<time>); progress on stderr
    --scenarios <names>  --formats <names>: the workload's (the study's: doc-read,write,collection-read
                         and html,json)   --processes 1,2,3,4,8   --reps 5
    --connections <n>    --amount <requests> | --duration <seconds> (defaults: the workload's)
    --warmup <requests> (default 200)
    --vary <name>=<a,b>  a value the workload varies (its vary), these values instead: a cell each (repeatable)
    --topology cluster|nginx
                         how N processes serve (comma list to compare): one node:cluster app (default),
                         or N independent instances behind nginx (Debian's, installed when missing)
    --balancer least_conn|round_robin
                         nginx's balancing (default least_conn; max_fails=3 fail_timeout=30s per instance)
    --find-max           per cell, connections doubling from --connections up to --max-connections (1024),
                         --duration seconds each (5), until the first failure: the highest error-free
                         throughput; --timeout <s> is a request's limit (default 10 here, else 60)
    --add-instance-at <s>[,<s>...]  --kill-instance-at <s>[,<s>...]
                         behind nginx, during a --duration run: start one more instance and reload nginx,
                         or kill one abruptly; the report shows each second around them
    --breakdown-source app|prometheus
                         where each cell's breakdown comes from: the app's /__nodebench (default; a
                         cluster's primary merges its workers), or the metrics every process exports,
                         scraped by Prometheus (the prometheus service if it runs, else one of the run's);
                         prometheus for --topology nginx
    --baseline-targets node,express[,app-untraced,apache-php]
                         the same scenarios also on bare servers beside the app: a node:http server and an
                         Express app answering the app's own bytes, the app without nodebench (added with
                         any of them), Apache httpd with PHP (Debian's, installed when missing); the report
                         climbs from the bare ceiling to the traced app (or a workload's targets)
    --quick              processes 1,2, one repetition, fewer requests: about a minute
    --out <dir>          --json: the results on stdout
    --browser            also load the workload's pages in Chromium (a quick browser pass, below) and
                         add its section to the report
    --baseline <results.json> [--fail-on <percent>]
                         also compare the run with a stored one (compare, below): compare.md, .json and
                         .html beside the report; exit 1 on a regression beyond --fail-on
    --flame [--flame-duration <s>]
                         also profile every scenario in each format (flame, below: V8's profiler, one
                         process, 10 s windows, 5 with --quick) and add the flamegraphs to the report
  browser [--pages home,collection,<path>] [--front-ends <names>] [--runs 5] [--cache cold,warm]
          [--network none|lan|fast-3g|slow-3g] [--timeout 30] [--out <dir>] [--json] [<app>]
                         the study's client-side half: each front end's pages (the study's: the server-
                         rendered pages and the AngularJS port) loaded in Debian's Chromium, a fresh context
                         each load: DOMContentLoaded, load, data shown, JS heap after a forced collection,
                         script/layout/style time, requests and bytes, server/network/client time (Server-
                         Timing), a function profile, AngularJS's scopes, watchers and digest time; beside
                         the study's figures in browser.json, browser.md and browser.html (charts)
  compare <a> <b> [--fail-on <percent>] [--out <dir>] [--json]
                         did b make the app slower, and in which middleware: two bench runs (results.json or
                         its folder) compared cell by cell (scenario, format, processes, topology): requests/s,
                         latency percentiles, and each segment's mean time and share, with the change, its 95%
                         interval and a verdict (faster, slower, no significant change) from a Mann-Whitney U
                         test over the repetitions; compare.md (a pull request's comment), compare.json and
                         compare.html (charts) in --out (default runs/compare-<time>). --fail-on 5: exit 1
                         when a cell's requests/s or a segment's mean time got significantly worse by more
                         than 5% over its whole 95% interval (a line each); runs that cannot be compared exit 2
  compare --cmd-a "<start A>" --cmd-b "<start B>" [--url <base>] | --app-a <dir> --app-b <dir> |
          --rev-a <rev> --rev-b <rev> [--app <dir> | --cmd "<command>" [--url <base>]]
          [--reps 10] [--scenarios ...] [--formats ...] [--processes 1] [--connections <n>]
          [--amount <n> | --duration <s>] [--warmup 200] [--vary <name>=<a,b>] [--workload <file>]
          [--fail-on <percent>]
                         a paired run for noisy machines: the same workload on both apps at once (each
                         --cmd with {port}, --url its scheme and host as for <app>; --rev: git revisions
                         of the app's checkout, each in a worktree with its dependencies installed),
                         repetitions interleaved A, B, A, B, a cell per combination of the workload's
                         varied values as bench runs them; each side's results in <out>/a and <out>/b,
                         then the same comparison
    --measure instructions [--warmup 2000] [--window 200] [--reps 6]
                         instead of time, the app's instructions per request counted by callgrind (valgrind),
                         one request at a time: --reps windows of --window requests after --warmup requests,
                         on both sides; the same on a machine shared with other jobs. Segments compare their
                         times under callgrind in the same windows
  demo [--out <dir>]     bench --quick --browser on examples/mongo-admin (what npm run demo runs)
  flame [--scenario <name>] [--format <name>|both] [--profiler v8|0x|clinic] [--warmup 5] [--duration 10]
        [--connections 10] [--out flamegraphs] [<app>]
                         CPU flamegraphs of a workload's scenario (default its first) in each format: after
                         --warmup seconds of load, a window of --duration seconds sampled (default V8's
                         sampling profiler; .cpuprofile beside <scenario>-<format>.html in --out); each
                         segment's share of the CPU beside its share of the time, the profiler's measured
                         overhead, and where the CPU went in HTML against JSON (template rendering, JSON,
                         database driver, Express, nodebench itself, V8/GC, ...); the app is an app
                         directory or any --cmd (with 0x and clinic: --cmd "node server.js ..."), its port
                         learnt from it
  report --source jaeger --service <name> [--jaeger <query-url>] [--since 10m] [--json|--md] [--out <dir>]
                         the breakdown computed from the traces Jaeger holds (default query URL:
                         JAEGER_QUERY_URL, else http://localhost:16686); each operation's slowest and a median
                         request drawn as waterfalls in report.html (--out, default runs/report-<time>)
  report --trace <id> [--jaeger <query-url>] [--json]
                         one trace's waterfall as text: every span at its start and length, by process
  report --source prometheus --service <name> [--prometheus <url>] [--since 10m] [--json|--md]
                         the breakdown of every instance of a service, from the metrics Prometheus holds
                         (nodebenchTrace({ metrics })); default URL: PROMETHEUS_URL, else the prometheus
                         service's, else http://localhost:9090. Names the instances it covered; --out <dir>
                         writes report.html
  report --source app --url <url> [--header 'name: value'] [--json|--md]
                         the breakdown an app serves (nodebenchTrace({ expose }), e.g. /__nodebench);
                         --header (repeatable) for an app whose access.read rule asks for one; --out <dir>
                         writes report.html
  services start [db|jaeger|prometheus]
                         start the embedded database (FerretDB), Jaeger or Prometheus in the background;
                         the last lines of stdout are the variables that reach it (MONGODB_URI=...;
                         OTEL_EXPORTER_OTLP_ENDPOINT=... and JAEGER_QUERY_URL=...; PROMETHEUS_URL=...).
                         No name: every service.
    db [--database <name>]
                         the database MONGODB_URI names (default: the package.json name of the current
                         directory, else app)
    prometheus [--target <host:port[/path]>]... [--targets-file <file>]... [--scrape-interval 5s]
                         the instances it scrapes (default path /metrics); given again while it runs,
                         they replace the earlier ones
  services stop [db|jaeger|prometheus]
                         stop it
  services status [db|jaeger|prometheus]
                         one line per service: running or not, pid, address, since when
  help, --help, -h       this text
  --version, -v          nodebench's version

<app>: how bench, flame, browser and compare --rev name the app they start or reach, and the workload they send it
(compare --cmd-a/-b take --url as --cmd does):
  --app <dir>            an app directory with the example's entry points (server.js --port <p>
                         --processes <n>, printing "listening on <url>"); default examples/mongo-admin in a
                         nodebench checkout, on the embedded database unless MONGODB_URI is set
  --cmd "<command>"      or your own start command, run by the shell ("PORT={port} npm start" too): {port}
                         becomes a free port and {processes} the process count; the app answers at --url
                         (with {port}'s port), else at http://127.0.0.1:{port}
  --url <base>           with --cmd: where the started app answers; alone: an app already running (neither
                         started nor stopped)
  --workload <file>      the scenarios to send (default: nodebench.workload.js or .json in --app's
                         directory, else in the current one)
  --stop-grace <s>       an app nodebench started is stopped as a whole process group: SIGTERM, then SIGKILL
                         (said in one line) if any of it still runs after this many seconds (default 5);
                         also on Ctrl-C, and whatever happens to nodebench

The first start builds FerretDB (about a minute) or Jaeger (several minutes) with Go; both are cached
afterwards. Apps that use @nodebench/services find a started database by themselves; set MONGODB_URI to
use another one.
`

module.exports = { USAGE }
