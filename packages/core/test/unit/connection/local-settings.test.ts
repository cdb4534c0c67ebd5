import { describe, expect, it } from 'vitest'
import { localSettingsOption } from '../../../src/connection/local-settings.ts'
import { isPipeflushError } from '../../../src/errors.ts'
import { forkSettings, managerSettings } from '../../../src/manager-settings.ts'

const refusal = (f: () => unknown): string => {
  try {
    f()
  } catch (e) {
    return isPipeflushError(e, 'INVALID_CONFIG') ? e.message : `not INVALID_CONFIG: ${String(e)}`
  }
  return 'no error'
}

describe('localSettings', () => {
  it('writes each parameter as a SET LOCAL, its name quoted word by word and its value a literal', () => {
    expect(
      localSettingsOption({
        'app.tenant_id': 42,
        role: 'tenant_user',
        'app.user': "o'brien\\x",
        'request.jwt.claim.admin': false,
      }).texts,
    ).toEqual([
      `set local "app"."tenant_id" = '42'`,
      `set local "role" = 'tenant_user'`,
      `set local "app"."user" = E'o''brien\\\\x'`,
      `set local "request"."jwt"."claim"."admin" = 'false'`,
    ])
  })

  it("a fork's over its parent's: a name given again takes the fork's value, the others stay", () => {
    const parent = managerSettings({ localSettings: { role: 'r', 'app.tenant_id': 'a' } })
    const fork = forkSettings(parent, { localSettings: { 'app.tenant_id': 'b' } })
    expect(fork.localSettings.texts).toEqual([`set local "role" = 'r'`, `set local "app"."tenant_id" = 'b'`])
    expect(parent.localSettings.texts).toEqual([
      `set local "role" = 'r'`,
      `set local "app"."tenant_id" = 'a'`,
    ])
    expect(forkSettings(parent, {}).localSettings).toBe(parent.localSettings)
    expect(managerSettings({}).localSettings.texts).toEqual([])
  })

  it('bad names and values are INVALID_CONFIG before anything is sent', () => {
    expect(refusal(() => localSettingsOption({ 'app.tenant; drop table x': '1' }))).toMatch(
      /"app\.tenant; drop table x" is not a configuration parameter's name/,
    )
    expect(refusal(() => localSettingsOption({ '': '1' }))).toMatch(/is not a configuration parameter's name/)
    expect(refusal(() => localSettingsOption({ 'app.': '1' }))).toMatch(
      /is not a configuration parameter's name/,
    )
    expect(refusal(() => localSettingsOption({ a: null }))).toMatch(/localSettings\.a must be a string/)
    expect(refusal(() => localSettingsOption({ a: Number.NaN }))).toMatch(/localSettings\.a must be a string/)
    expect(refusal(() => localSettingsOption({ a: { id: 1 } }))).toMatch(/localSettings\.a must be a string/)
    expect(refusal(() => localSettingsOption({ a: 'x\u0000y' }))).toMatch(
      /localSettings\.a: the value contains a NUL/,
    )
    expect(refusal(() => localSettingsOption('app.tenant_id=1'))).toMatch(/localSettings must be an object/)
    expect(refusal(() => localSettingsOption([['a', '1']]))).toMatch(/localSettings must be an object/)
  })

  it('a fork option it does not know is INVALID_CONFIG, not dropped', () => {
    const parent = managerSettings({})
    expect(refusal(() => forkSettings(parent, { localsettings: { a: '1' } } as never))).toMatch(
      /fork: unknown option "localsettings"; the options are pipeline, flushTimeoutMs, localSettings/,
    )
  })
})
