// Written by relationsTypeSource() of @pipeflush/kysely from the database's foreign keys.
export interface Relations {
  app_user: {
    articles_by_author: { table: 'article'; many: true }
    articles_by_favorite: { table: 'article'; many: true; through: 'favorite' }
    comments: { table: 'comment'; many: true }
    favorites: { table: 'favorite'; many: true }
    followees: { table: 'app_user'; many: true; through: 'follow' }
    followers: { table: 'app_user'; many: true; through: 'follow' }
    follows_by_followee: { table: 'follow'; many: true }
    follows_by_follower: { table: 'follow'; many: true }
  }
  article: {
    app_users: { table: 'app_user'; many: true; through: 'favorite' }
    article_tags: { table: 'article_tag'; many: true }
    author: { table: 'app_user'; many: false }
    comments: { table: 'comment'; many: true }
    favorites: { table: 'favorite'; many: true }
    tags: { table: 'tag'; many: true; through: 'article_tag' }
  }
  article_tag: {
    article: { table: 'article'; many: false }
    tag: { table: 'tag'; many: false }
  }
  comment: {
    article: { table: 'article'; many: false }
    author: { table: 'app_user'; many: false }
  }
  favorite: {
    article: { table: 'article'; many: false }
    user: { table: 'app_user'; many: false }
  }
  follow: {
    followee: { table: 'app_user'; many: false }
    follower: { table: 'app_user'; many: false }
  }
  tag: {
    article_tags: { table: 'article_tag'; many: true }
    articles: { table: 'article'; many: true; through: 'article_tag' }
  }
}
