// A shop as React writes it: a grid of product cards (name, price,
// "Add to cart"), prices rendered as "$" and the number in two text nodes,
// and a cart with its total.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const products = [
  { id: 1, name: 'Backpack', price: 49.99 },
  { id: 2, name: 'Bike Light', price: 9.99 },
  { id: 3, name: 'Fleece Jacket', price: 29.99 },
  { id: 4, name: 'Onesie', price: 7.99 },
];

function Shop() {
  const [cart, setCart] = useState([]);
  const total = cart.reduce((s, id) => s + products.find(p => p.id === id).price, 0);
  return (
    <main>
      <h1>Products</h1>
      <p id="greet">Hello {'Ann'}, {cart.length} items in your cart</p>
      <div className="grid">
        {products.map(p => (
          <div className="card" key={p.id}>
            <div className="name">{p.name}</div>
            <div className="price">${p.price}</div>
            <button onClick={() => setCart([...cart, p.id])}>Add to cart</button>
          </div>
        ))}
      </div>
      <aside>
        <h2>Cart</h2>
        <ul id="cart">{cart.map((id, i) => <li key={i}>{products.find(p => p.id === id).name}</li>)}</ul>
        <p id="total">Total: ${total.toFixed(2)}</p>
      </aside>
    </main>
  );
}

createRoot(document.getElementById('root')).render(<Shop />);
