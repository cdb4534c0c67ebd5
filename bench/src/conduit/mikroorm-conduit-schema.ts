import { EntitySchema } from '@mikro-orm/core'

type Row = Record<string, unknown>

/** MikroORM's entities of the Conduit tables, by table. */
export interface ConduitEntities {
  readonly user: EntitySchema<Row>
  readonly follow: EntitySchema<Row>
  readonly article: EntitySchema<Row>
  readonly tag: EntitySchema<Row>
  readonly favorite: EntitySchema<Row>
  readonly comment: EntitySchema<Row>
}

const text = { type: 'string' } as const
const time = { type: 'datetime', columnType: 'timestamptz', defaultRaw: 'now()' } as const
const id = { type: 'integer', primary: true, autoincrement: true } as const

/**
 * The Conduit tables as `EntitySchema`s (no decorators), columns by their names, foreign keys as
 * many-to-one relations on their columns (`author_id` -> `author`): `follow` and `favorite` keyed by
 * their two relations; an article's tags a many-to-many relation through `article_tag`, its favorites
 * and comments, and a user's follow rows as followee (`followerLinks`), one-to-many collections (the
 * reader's rows among them are what the views' flags are made of). An article's `favoritesCount` is a
 * formula: a count subquery in its select.
 *
 * @example
 * const e = conduitEntitySchemas()
 * await MikroORM.init({ clientUrl, entities: Object.values(e) })
 */
export function conduitEntitySchemas(): ConduitEntities {
  const e: Record<keyof ConduitEntities, EntitySchema<Row>> = {} as never
  e.user = new EntitySchema<Row>({
    name: 'ConduitUser',
    tableName: 'app_user',
    properties: {
      id,
      username: text,
      email: text,
      password_hash: text,
      bio: { ...text, default: '' },
      image: { ...text, default: '' },
      followerLinks: { kind: '1:m', entity: () => e.follow, mappedBy: 'followee' },
    } as never,
  })
  e.follow = new EntitySchema<Row>({
    name: 'ConduitFollow',
    tableName: 'follow',
    properties: {
      follower: { kind: 'm:1', entity: () => e.user, joinColumn: 'follower_id', primary: true },
      followee: { kind: 'm:1', entity: () => e.user, joinColumn: 'followee_id', primary: true },
    } as never,
  })
  e.tag = new EntitySchema<Row>({
    name: 'ConduitTag',
    tableName: 'tag',
    properties: { id, name: text } as never,
  })
  e.article = new EntitySchema<Row>({
    name: 'ConduitArticle',
    tableName: 'article',
    properties: {
      id,
      slug: text,
      title: text,
      description: text,
      body: text,
      author: { kind: 'm:1', entity: () => e.user, joinColumn: 'author_id' },
      created_at: time,
      updated_at: time,
      tags: {
        kind: 'm:n',
        entity: () => e.tag,
        owner: true,
        pivotTable: 'article_tag',
        joinColumn: 'article_id',
        inverseJoinColumn: 'tag_id',
      },
      favorites: { kind: '1:m', entity: () => e.favorite, mappedBy: 'article' },
      comments: { kind: '1:m', entity: () => e.comment, mappedBy: 'article' },
      favoritesCount: {
        type: 'integer',
        persist: false,
        formula: (cols: { id: string }) =>
          `(select count(*)::int from favorite f where f.article_id = ${cols.id})`,
      },
    } as never,
  })
  e.favorite = new EntitySchema<Row>({
    name: 'ConduitFavorite',
    tableName: 'favorite',
    properties: {
      user: { kind: 'm:1', entity: () => e.user, joinColumn: 'user_id', primary: true },
      article: { kind: 'm:1', entity: () => e.article, joinColumn: 'article_id', primary: true },
    } as never,
  })
  e.comment = new EntitySchema<Row>({
    name: 'ConduitComment',
    tableName: 'comment',
    properties: {
      id,
      article: { kind: 'm:1', entity: () => e.article, joinColumn: 'article_id' },
      author: { kind: 'm:1', entity: () => e.user, joinColumn: 'author_id' },
      body: text,
      created_at: time,
      updated_at: time,
    } as never,
  })
  return e
}
