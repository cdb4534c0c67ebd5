import { flushLogDdl } from '@pipeflush/core'
import type { Generated } from '@pipeflush/kysely'

/** Conduit's tables, as kysely-codegen would write them (the views' and relations' types are elsewhere). */
export interface DB {
  app_user: {
    id: Generated<number>
    username: string
    email: string
    /** `scrypt$<salt>$<key>`, both base64url (see `auth/passwords.ts`). */
    password_hash: string
    bio: Generated<string>
    image: Generated<string>
  }
  /** `follower_id` follows `followee_id`. */
  follow: { follower_id: number; followee_id: number }
  article: {
    id: Generated<number>
    slug: string
    title: string
    description: string
    body: string
    author_id: number
    created_at: Generated<Date>
    updated_at: Generated<Date>
  }
  tag: { id: Generated<number>; name: string }
  article_tag: { article_id: number; tag_id: number }
  /** `user_id` favorited `article_id`. */
  favorite: { user_id: number; article_id: number }
  comment: {
    id: Generated<number>
    article_id: number
    author_id: number
    body: string
    created_at: Generated<Date>
    updated_at: Generated<Date>
  }
}

/**
 * The DDL. No `on delete cascade`: deleting an article deletes its comments, favorites and tag links
 * in the same flush (the unit of work orders the deletes, children first). `bio` and `image` are
 * strings, empty when unset: the spec's `User` and `Profile` have them as required strings.
 */
const DDL = `
  create table app_user (
    id serial primary key,
    username text not null unique,
    email text not null unique,
    password_hash text not null,
    bio text not null default '',
    image text not null default ''
  );
  create table follow (
    follower_id int not null references app_user,
    followee_id int not null references app_user,
    primary key (follower_id, followee_id),
    check (follower_id <> followee_id)
  );
  create index follow_followee on follow (followee_id);
  create table article (
    id serial primary key,
    slug text not null unique,
    title text not null,
    description text not null,
    body text not null,
    author_id int not null references app_user,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  );
  create index article_newest on article (created_at desc, id desc);
  create index article_author on article (author_id, created_at desc);
  create table tag (id serial primary key, name text not null unique);
  create table article_tag (
    article_id int not null references article,
    tag_id int not null references tag,
    primary key (article_id, tag_id)
  );
  create index article_tag_tag on article_tag (tag_id);
  create table favorite (
    user_id int not null references app_user,
    article_id int not null references article,
    primary key (user_id, article_id)
  );
  create index favorite_article on favorite (article_id);
  create table comment (
    id serial primary key,
    article_id int not null references article,
    author_id int not null references app_user,
    body text not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  );
  create index comment_article on comment (article_id, id);
`

/** Runs one SQL text (setup only): a pool's `query`, or postgres.js's `sql.unsafe`. */
export type RunSql = (text: string) => Promise<unknown>

/**
 * Creates Conduit's tables (in an empty database).
 *
 * @example
 * await createSchema(admin.query)
 */
export async function createSchema(run: RunSql): Promise<void> {
  await run(DDL)
  await run(flushLogDdl(FLUSH_LOG))
}

/**
 * The flush log: each flush records its id in it, in its own transaction, so that a request whose
 * flush lost its connection after the COMMIT was sent (`COMMIT_OUTCOME_UNKNOWN`) can ask whether it
 * committed before answering (see `PipeflushStore`).
 */
export const FLUSH_LOG = 'flush_log'

/**
 * Empties every table, referencing rows first. `delete`, not `truncate` (which gives each table new
 * storage, and every connection then reloads its caches of them), and the sequences go on (pipeflush
 * keeps a pool of ids per client).
 *
 * @example
 * await resetData(admin.query)
 */
export async function resetData(run: RunSql): Promise<void> {
  await run(
    'delete from flush_log; delete from comment; delete from favorite; delete from article_tag; delete from tag; delete from article; delete from follow; delete from app_user',
  )
}
