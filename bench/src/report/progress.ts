import { type Step, stepSeriesIds } from '../matrix.ts'
import { duration, rowsLabel } from './format.ts'

/** What a progress display needs: one call per step, and log lines that must not garble the line. */
export interface Progress {
  step(done: number, total: number, step: Step | undefined): void
  log(line: string): void
  /** Clears the progress line. */
  end(): void
}

function label(step: Step): string {
  if (step.scenario === 'realistic')
    return `${step.latencyMs} ms · realistic · ${step.concurrency === 1 ? 'in sequence' : `${step.concurrency} at a time`} · ${step.series.id}`
  if (step.scenario === 'request')
    return `${step.latencyMs} ms · request · ${step.cell === 'conduit' ? 'conduit · ' : ''}${step.series.id}`
  const tables = step.work.tables.length
  const series =
    step.scenario === 'cpu' ? `${stepSeriesIds(step).length} series side by side` : step.series.id
  if (step.work.shop) return `${step.latencyMs} ms · ${step.scenario} · shop ${step.work.shop} · ${series}`
  return `${step.latencyMs} ms · ${step.scenario} · ${tables} ${tables === 1 ? 'table' : 'tables'} x ${rowsLabel(step.work.rowsPerTable)} · ${series}`
}

/**
 * A progress line on stderr: rewritten in place on a terminal, one line per step otherwise (CI logs).
 * Shows steps done, elapsed time and a rough time left (from the average step so far).
 */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = performance.now()
  const tty = stream.isTTY === true
  let shown = false
  const clear = () => {
    if (tty && shown) stream.write('\r\x1b[2K')
    shown = false
  }
  return {
    step(done, total, step) {
      if (!step) return
      const elapsed = (performance.now() - started) / 1000
      const left = done > 0 ? (elapsed / done) * (total - done) : undefined
      const text = `[${String(done + 1).padStart(String(total).length)}/${total}] ${duration(elapsed)} elapsed${left === undefined ? '' : `, ~${duration(left)} left`} · ${label(step)}`
      if (tty) {
        clear()
        stream.write(text.slice(0, (stream.columns ?? 120) - 1))
        shown = true
      } else stream.write(`${text}\n`)
    },
    log(line) {
      clear()
      stream.write(`${line}\n`)
    },
    end: clear,
  }
}
