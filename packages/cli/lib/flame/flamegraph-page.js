'use strict'

const fs = require('node:fs')

// What nodebench changes in the flamegraph page 0x draws (its d3-fg chart), so that the frame that matters is seen:
// - d3-fg colours a frame by its share at the top of the stack with a lightness and saturation that leave the
//   sRGB range past ~10% (`rgba(3523,2009,3115,1.19)` for 97.6%), which the canvas clamps to white: the hottest
//   frame was drawn with no fill. Its heat is capped where the key's "hot" is (10% at the top of the stack), so
//   every frame at or past that is drawn in the key's hot colour.
// - the chart opens scrolled to its top, while a hot frame near the root of a deep chart is below the fold: once
//   drawn, the chart scrolls to the row that holds the most of the hot colour.
// The bundle 0x writes is its own; the edits are found by the text they replace, and a page where one is not
// found is said to be so (FLAMEGRAPH_EDITS lists them; the tests check them on the 0x installed).

const HEAT = 'var vector = ((top / allSamples) * 100) + 1'
// The key's hottest swatch is `top: 10` of 100: vector 11.
const CAPPED_HEAT = 'var vector = Math.min(((top / allSamples) * 100) + 1, 11) // nodebench: capped at the key\'s "hot"'

// Runs in the page once 0x has drawn: the hot colour is the key's last swatch; the chart scrolls to the row of the
// canvas with the most pixels of it (a frame's fill), centred, when that row is not in view.
const SCROLL_TO_HOT = `<script>
/* nodebench: the hottest frame in view */
addEventListener('load', function () { setTimeout(function () {
  var chart = document.querySelector('chart'); var canvas = chart && chart.querySelector('canvas')
  var swatches = document.querySelectorAll('#key > div[style*="background"]')
  if (!canvas || swatches.length === 0) return
  var hot = getComputedStyle(swatches[swatches.length - 1]).backgroundColor.match(/[\\d.]+/g).map(Number)
  var pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
  var best = -1; var bestCount = 0
  for (var y = 0; y < canvas.height; y++) {
    var count = 0
    for (var x = 0; x < canvas.width; x++) {
      var i = (y * canvas.width + x) * 4
      if (pixels[i + 3] > 0 && Math.abs(pixels[i] - hot[0]) <= 3 && Math.abs(pixels[i + 1] - hot[1]) <= 3 && Math.abs(pixels[i + 2] - hot[2]) <= 3) count++
    }
    if (count > bestCount) { best = y; bestCount = count }
  }
  if (best < 0) return
  var box = canvas.getBoundingClientRect(); var chartBox = chart.getBoundingClientRect()
  var rowTop = box.top + best * (box.height / canvas.height)
  if (rowTop < chartBox.top || rowTop > chartBox.bottom - 20) chart.scrollTop += rowTop - (chartBox.top + chartBox.height / 2)
  document.documentElement.dataset.nodebenchHotRow = String(best)
}, 50) })
</script>
`

const FLAMEGRAPH_EDITS = Object.freeze(['the heat of a frame capped at the key\'s hot', 'the hottest frame scrolled into view'])

/**
 * Applies nodebench's edits to the flamegraph page 0x wrote at `file`; resolves to the edits it could not make
 * (their FLAMEGRAPH_EDITS names), an empty array when the page has them all.
 */
function finishFlamegraphPage (file) {
  let page = fs.readFileSync(file, 'utf8')
  const missing = []
  if (page.includes(HEAT)) page = page.replace(HEAT, CAPPED_HEAT)
  else if (!page.includes(CAPPED_HEAT)) missing.push(FLAMEGRAPH_EDITS[0])
  const end = page.lastIndexOf('</body>')
  if (page.includes('nodebench: the hottest frame in view')) {
    // Already finished (a page drawn again from the same data).
  } else if (end === -1) {
    missing.push(FLAMEGRAPH_EDITS[1])
  } else {
    page = page.slice(0, end) + SCROLL_TO_HOT + page.slice(end)
  }
  fs.writeFileSync(file, page)
  return missing
}

module.exports = { finishFlamegraphPage, FLAMEGRAPH_EDITS }
