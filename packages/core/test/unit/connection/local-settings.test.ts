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
    expect(refusal(() => localSettingsOption('app.tenant_id=1'))).toMatch(
      /localSettings must be a plain object/,
    )
    expect(refusal(() => localSettingsOption([['a', '1']]))).toMatch(/localSettings must be a plain object/)
    // Own properties are what is read: a Map or an object of getters would set nothing, silently.
    expect(refusal(() => localSettingsOption(new Map([['app.tenant_id', '1']])))).toMatch(
      /localSettings must be a plain object .*not a Map/,
    )
    class Claims {
      get 'app.tenant_id'() {
        return '1'
      }
    }
    expect(refusal(() => localSettingsOption(new Claims()))).toMatch(/localSettings must be a plain object/)
    expect(localSettingsOption(Object.assign(Object.create(null), { a: '1' })).texts).toEqual([
      `set local "a" = '1'`,
    ])
    // A word the server would cut to 63 bytes names another parameter.
    expect(refusal(() => localSettingsOption({ [`app.${'w'.repeat(64)}`]: '1' }))).toMatch(
      /has a word longer than 63 characters \(64\)/,
    )
    expect(localSettingsOption({ [`app.${'w'.repeat(63)}`]: '1' }).texts).toHaveLength(1)
  })

  it('search_path and temp_tablespaces take a list of names: each quoted, plain ones folded', () => {
    expect(
      localSettingsOption({ search_path: 'tenant_a, "Tenant B", Public, $user', temp_tablespaces: 'fast' })
        .texts,
    ).toEqual([
      `set local "search_path" = "tenant_a", "Tenant B", "public", "$user"`,
      `set local "temp_tablespaces" = "fast"`,
    ])
    expect(refusal(() => localSettingsOption({ search_path: 'a; drop table x' }))).toMatch(
      /localSettings\.search_path: "a; drop table x" is not a list of names/,
    )
    expect(refusal(() => localSettingsOption({ search_path: '' }))).toMatch(/is not a list of names/)
    expect(refusal(() => localSettingsOption({ search_path: 'a,,b' }))).toMatch(/is not a list of names/)
    expect(refusal(() => localSettingsOption({ SEARCH_PATH: '"a"b"' }))).toMatch(/is not a list of names/)
  })

  it('a fork option it does not know is INVALID_CONFIG, not dropped', () => {
    const parent = managerSettings({})
    expect(refusal(() => forkSettings(parent, { localsettings: { a: '1' } } as never))).toMatch(
      /fork: unknown option "localsettings"; the options are pipeline, flushTimeoutMs, localSettings/,
    )
  })
})
