import { isPipeflushError } from '@pipeflush/core'
import type { NewUser, ProfileView, Reader, UserChanges, UserRecord, UserRepository } from '../types.ts'
import { ownEntity } from './own-entity.ts'
import { follows, profileTree } from './reader-graph.ts'
import type { ConduitEm, User } from './types.ts'

/** Users and their follows, on the request's unit of work. */
export class PipeflushUserRepository implements UserRepository {
  readonly #em: ConduitEm

  constructor(em: ConduitEm) {
    this.#em = em
  }

  /** A load by key: gathered with the other loads of `app_user` in this tick into one select. */
  async byId(id: number): Promise<User | undefined> {
    try {
      return await this.#em.load('app_user', id)
    } catch (e) {
      if (isPipeflushError(e, 'NOT_FOUND')) return undefined
      throw e
    }
  }

  byEmail(email: string): Promise<User | undefined> {
    return this.#em.findOne('app_user', { email })
  }

  /** Inserted by the flush: its id, `bio` and `image` are there once it committed. */
  async register(user: NewUser): Promise<User> {
    return this.#em.create('app_user', {
      username: user.username,
      email: user.email,
      password_hash: user.passwordHash,
    })
  }

  async update(user: UserRecord, changes: UserChanges): Promise<User> {
    const entity = ownEntity(this.#em, 'app_user', user)
    const { username, email, passwordHash, bio, image } = changes
    if (username !== undefined) entity.username = username
    if (email !== undefined) entity.email = email
    if (passwordHash !== undefined) entity.password_hash = passwordHash
    if (bio !== undefined) entity.bio = bio
    if (image !== undefined) entity.image = image
    return entity
  }

  /** One graph load, one round trip: the user, and the reader's follow row of them. */
  async profile(username: string, reader: Reader): Promise<ProfileView | undefined> {
    const em = this.#em
    const user = await em.findOne('app_user', { username }, { with: profileTree(reader) })
    return user && { user, following: follows(em, user, reader) }
  }

  /** An upsert that changes nothing when the follow exists: two requests at once make one row. */
  async follow(reader: number, profile: ProfileView): Promise<ProfileView> {
    this.#em.upsert(
      'follow',
      { follower_id: reader, followee_id: profile.user.id },
      { conflict: ['follower_id', 'followee_id'], update: [] },
    )
    return { user: profile.user, following: true }
  }

  /** The follow row was read with the profile: a load by key from the identity map, no query. */
  async unfollow(reader: number, profile: ProfileView): Promise<ProfileView> {
    if (profile.following) {
      this.#em.remove(await this.#em.load('follow', { follower_id: reader, followee_id: profile.user.id }))
    }
    return { user: profile.user, following: false }
  }
}
