'use strict'

const USAGE = `Usage: nodebench <command>

Commands:
  demo [--seconds <s>] [--out <dir>]
                         the study in one command: the example app (examples/mongo-admin) on the
                         embedded database, each operation driven in HTML and JSON for <s> seconds
                         (default 3, or DEMO_SECONDS); prints where the time went and writes
                         breakdown.{json,md,html} to <dir> (default runs/demo-<time>)
  report --source jaeger --service <name> [--jaeger <query-url>] [--since 10m] [--json|--md]
                         the breakdown computed from the traces Jaeger holds (default query URL:
                         JAEGER_QUERY_URL, else http://localhost:16686), with links to exemplar traces
  report --source app --url <url> [--json|--md]
                         the breakdown an app serves (nodebenchTrace({ expose }), e.g. /__nodebench)
  services start [db|jaeger]
                         start the embedded database (FerretDB) or Jaeger in the background; the last
                         lines of stdout are the variables that reach it (MONGODB_URI=...;
                         OTEL_EXPORTER_OTLP_ENDPOINT=... and JAEGER_QUERY_URL=...). No name: every service.
  services stop [db|jaeger]
                         stop it
  services status [db|jaeger]
                         one line per service: running or not, pid, address, since when
  help, --help, -h       this text

The first start builds FerretDB (about a minute) or Jaeger (several minutes) with Go; both are cached
afterwards. Apps that use @nodebench/services find a started database by themselves; set MONGODB_URI to
use another one.
`

module.exports = { USAGE }
