// The bookstore's graph load that the read tools measure: its tables and rows (`DDL`, one author
// with three books, their reviews, tags and publishers) and the `with` tree of the load (`WITH`):
// `em.load('author', 1, { with: WITH })`, six selects in one round trip.
export const DDL = `
  create table publisher (id serial primary key, name text not null unique);
  create table author (id serial primary key, name text not null, bio text);
  create table book (id bigserial primary key, author_id int not null references author,
    publisher_id int references publisher, title text not null, price numeric(10, 2), published_on date);
  create table tag (id serial primary key, name text not null unique);
  create table book_tag (book_id bigint not null references book, tag_id int not null references tag,
    primary key (book_id, tag_id));
  create table review (id bigserial primary key, book_id bigint not null references book,
    stars int not null, body text);
  insert into publisher (name) values ('Parnassus'), ('Ace'), ('Harper & Row');
  insert into author (name, bio) values ('Ursula K. Le Guin', 'Earthsea and the Hainish Cycle.');
  insert into book (author_id, publisher_id, title, price, published_on) values
    (1, 1, 'A Wizard of Earthsea', 9.99, '1968-11-01'), (1, 2, 'The Left Hand of Darkness', 14.50, '1969-03-01'),
    (1, 3, 'The Dispossessed', 12.00, null);
  insert into tag (name) values ('fantasy'), ('classic'), ('coming-of-age'), ('science-fiction'), ('utopia');
  insert into book_tag values (1, 1), (1, 2), (1, 3), (2, 4), (2, 2), (3, 4), (3, 5);
  insert into review (book_id, stars, body) values (1, 5, 'A true name.'), (1, 4, null), (1, 2, 'Too many shadows.'),
    (2, 5, null), (2, 1, 'Cold.'), (3, 5, 'An ambiguous utopia.');
`
export const WITH = { books: { reviews: true, book_tags: true, tags: true, publisher: true } } as const
