'use strict'

// The page shell of the CLI's reports is the breakdown's (@nodebench/breakdown's lib/page.js): one look for the
// page the middleware serves and every report.

const { htmlPage, htmlSection } = require('@nodebench/breakdown')

module.exports = { htmlPage, section: htmlSection }
