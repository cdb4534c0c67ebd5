import * as vega from 'vega'
import * as vl from 'vega-lite'

const data = [
  { latency: 0, tables: 1, series: 'a', ms: 1 },
  { latency: 0, tables: 5, series: 'a', ms: 2 },
  { latency: 2, tables: 1, series: 'b', ms: 5 },
  { latency: 2, tables: 5, series: 'b', ms: 9 },
]
const spec: vl.TopLevelSpec = {
  data: { values: data },
  facet: { column: { field: 'latency', type: 'ordinal' } },
  spec: {
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'tables', type: 'quantitative' },
      y: { field: 'ms', type: 'quantitative' },
      color: { field: 'series', type: 'nominal' },
    },
  },
  resolve: { scale: { y: 'independent' } },
}
const t0 = performance.now()
const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' })
const svg = await view.toSVG()
console.log(svg.length, svg.slice(0, 200), performance.now() - t0)
