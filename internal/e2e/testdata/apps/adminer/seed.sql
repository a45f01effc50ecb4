CREATE TABLE products (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, price REAL NOT NULL, category TEXT);
INSERT INTO products (name, price, category) VALUES ('Widget', 9.5, 'tools'), ('Gadget', 24, 'tools'), ('Sprocket', 3.25, 'parts'), ('Discontinued lamp', 40, 'home'), ('Spanner', 12, 'tools');
CREATE TABLE orders (id INTEGER PRIMARY KEY AUTOINCREMENT, product_id INTEGER REFERENCES products(id), quantity INTEGER NOT NULL, status TEXT DEFAULT 'new');
INSERT INTO orders (product_id, quantity, status) VALUES (1, 3, 'new'), (2, 1, 'shipped'), (3, 10, 'new');
