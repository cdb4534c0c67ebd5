import type { Kysely } from 'kysely'
import type { DB } from '../../schema.ts'
import type { NewUser, ProfileView, Reader, UserChanges, UserRecord, UserRepository } from '../types.ts'

/** Users and their follows, one awaited Kysely query at a time. */
export class KyselyUserRepository implements UserRepository {
  readonly #db: Kysely<DB>

  constructor(db: Kysely<DB>) {
    this.#db = db
  }

  byId(id: number): Promise<UserRecord | undefined> {
    return this.#db.selectFrom('app_user').selectAll().where('id', '=', id).executeTakeFirst()
  }

  byEmail(email: string): Promise<UserRecord | undefined> {
    return this.#db.selectFrom('app_user').selectAll().where('email', '=', email).executeTakeFirst()
  }

  register(user: NewUser): Promise<UserRecord> {
    return this.#db
      .insertInto('app_user')
      .values({ username: user.username, email: user.email, password_hash: user.passwordHash })
      .returningAll()
      .executeTakeFirstOrThrow()
  }

  update(user: UserRecord, changes: UserChanges): Promise<UserRecord> {
    const { username, email, passwordHash, bio, image } = changes
    return this.#db
      .updateTable('app_user')
      .set({
        ...(username === undefined ? {} : { username }),
        ...(email === undefined ? {} : { email }),
        ...(passwordHash === undefined ? {} : { password_hash: passwordHash }),
        ...(bio === undefined ? {} : { bio }),
        ...(image === undefined ? {} : { image }),
      })
      .where('id', '=', user.id)
      .returningAll()
      .executeTakeFirstOrThrow()
  }

  async profile(username: string, reader: Reader): Promise<ProfileView | undefined> {
    const user = await this.#db
      .selectFrom('app_user')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirst()
    if (!user) return undefined
    if (reader === undefined) return { user, following: false }
    const follow = await this.#db
      .selectFrom('follow')
      .select('followee_id')
      .where('follower_id', '=', reader)
      .where('followee_id', '=', user.id)
      .executeTakeFirst()
    return { user, following: follow !== undefined }
  }

  async follow(reader: number, profile: ProfileView): Promise<ProfileView> {
    await this.#db
      .insertInto('follow')
      .values({ follower_id: reader, followee_id: profile.user.id })
      .onConflict((oc) => oc.doNothing())
      .execute()
    return { user: profile.user, following: true }
  }

  async unfollow(reader: number, profile: ProfileView): Promise<ProfileView> {
    await this.#db
      .deleteFrom('follow')
      .where('follower_id', '=', reader)
      .where('followee_id', '=', profile.user.id)
      .execute()
    return { user: profile.user, following: false }
  }
}
