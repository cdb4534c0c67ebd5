import type { Settings } from '../settings.ts'

/** The settings a flush runs with (each declared once, in `Settings`). */
export type FlushSettings = Pick<
  Settings,
  | 'driver'
  | 'schema'
  | 'ids'
  | 'mode'
  | 'timeoutMs'
  | 'named'
  | 'preparedBurst'
  | 'flushLog'
  | 'serverValues'
  | 'copyRows'
  | 'localSettings'
>
