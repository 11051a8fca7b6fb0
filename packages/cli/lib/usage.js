'use strict'

const USAGE = `Usage: nodebench <command>

Commands:
  demo [--seconds <s>] [--out <dir>]
                         the study in one command: the example app (examples/mongo-admin) on the
                         embedded database, each operation driven in HTML and JSON for <s> seconds
                         (default 3, or DEMO_SECONDS); prints where the time went and writes
                         breakdown.{json,md,html} to <dir> (default runs/demo-<time>)
  services start [db]    start the embedded database (FerretDB) in the background; prints
                         MONGODB_URI=... as the last line of stdout. Without a name: every service.
  services stop [db]     stop it
  services status [db]   one line per service: running or not, pid, address, since when
  help, --help, -h       this text

The first start builds FerretDB with Go (about a minute; cached afterwards). Apps that use
@nodebench/services find a started database by themselves; set MONGODB_URI to use another one.
`

module.exports = { USAGE }
