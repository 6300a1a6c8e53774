-- The category trees shipped with Nativa. Operators may edit them; ids of the seed are fixed so
-- that documentation and clients can refer to them.

INSERT INTO categories (id, parent_id, title) VALUES
  (1, NULL, 'Clothing & Shoes'),
  (2, NULL, 'Electronics'),
  (3, NULL, 'Home & Garden'),
  (4, NULL, 'Health & Beauty'),
  (5, NULL, 'Sports & Outdoors'),
  (6, NULL, 'Kids & Toys'),
  (7, NULL, 'Auto & Moto'),
  (8, NULL, 'Food & Drink'),
  (9, NULL, 'Finance & Insurance'),
  (10, NULL, 'Travel'),
  (11, NULL, 'Education'),
  (12, NULL, 'Games & Entertainment'),
  (101, 1, 'Women''s clothing'), (102, 1, 'Men''s clothing'), (103, 1, 'Shoes'), (104, 1, 'Bags & Accessories'), (105, 1, 'Watches & Jewellery'),
  (201, 2, 'Smartphones'), (202, 2, 'Laptops & Computers'), (203, 2, 'Audio & Headphones'), (204, 2, 'TV & Video'), (205, 2, 'Smart home'), (206, 2, 'Cameras'),
  (301, 3, 'Furniture'), (302, 3, 'Kitchen'), (303, 3, 'Garden'), (304, 3, 'Tools & DIY'), (305, 3, 'Home textiles'),
  (401, 4, 'Skin care'), (402, 4, 'Make-up'), (403, 4, 'Hair care'), (404, 4, 'Vitamins & Supplements'), (405, 4, 'Medical devices'),
  (501, 5, 'Fitness'), (502, 5, 'Cycling'), (503, 5, 'Camping & Hiking'), (504, 5, 'Team sports'), (505, 5, 'Water sports'),
  (601, 6, 'Toys'), (602, 6, 'Baby care'), (603, 6, 'Kids'' clothing'), (604, 6, 'School supplies'),
  (701, 7, 'Cars'), (702, 7, 'Parts & Accessories'), (703, 7, 'Motorcycles'), (704, 7, 'Tyres & Wheels'),
  (801, 8, 'Groceries'), (802, 8, 'Food delivery'), (803, 8, 'Wine & Spirits'), (804, 8, 'Coffee & Tea'),
  (901, 9, 'Credit cards'), (902, 9, 'Loans'), (903, 9, 'Insurance'), (904, 9, 'Investments'),
  (1001, 10, 'Flights'), (1002, 10, 'Hotels'), (1003, 10, 'Tours'), (1004, 10, 'Car rental'),
  (1101, 11, 'Online courses'), (1102, 11, 'Languages'), (1103, 11, 'Books'),
  (1201, 12, 'Video games'), (1202, 12, 'Board games'), (1203, 12, 'Streaming & Cinema'), (1204, 12, 'Music');
SELECT setval(pg_get_serial_sequence('categories', 'id'), 10000);

INSERT INTO site_categories (id, parent_id, title) VALUES
  (1, NULL, 'News & Media'),
  (2, NULL, 'Entertainment'),
  (3, NULL, 'Technology'),
  (4, NULL, 'Sports'),
  (5, NULL, 'Lifestyle'),
  (6, NULL, 'Business & Finance'),
  (7, NULL, 'Auto'),
  (8, NULL, 'Health'),
  (9, NULL, 'Travel'),
  (10, NULL, 'Games'),
  (11, NULL, 'Education'),
  (12, NULL, 'Other'),
  (101, 1, 'General news'), (102, 1, 'Regional news'), (103, 1, 'Politics'),
  (201, 2, 'Celebrities'), (202, 2, 'Humour'), (203, 2, 'Movies & TV'), (204, 2, 'Music'),
  (301, 3, 'Gadgets'), (302, 3, 'Software'), (303, 3, 'Science'),
  (401, 4, 'Football'), (402, 4, 'Other sports'),
  (501, 5, 'Women'), (502, 5, 'Men'), (503, 5, 'Food & Recipes'), (504, 5, 'Home & Family'),
  (601, 6, 'Markets'), (602, 6, 'Personal finance'),
  (1001, 10, 'Game news'), (1002, 10, 'Online games');
SELECT setval(pg_get_serial_sequence('site_categories', 'id'), 10000);
