// A shop grid shaped as Swag Labs (saucedemo) marks it up: each card is an
// image link, then a description block that holds the name (a link) and
// the text in one div, and the price and "Add to cart" in a sibling div.
// No element holds a product's name and its own button but the card, so a
// snapshot that keeps only the two inner groups sets the names and the
// buttons side by side.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const products = [
  { id: 4, name: 'Sauce Labs Backpack', desc: 'carry.allTheThings() with the sleek, streamlined Sly Pack.', price: '29.99' },
  { id: 0, name: 'Sauce Labs Bike Light', desc: "A red light isn't the desired state in testing but it sure helps when riding your bike at night.", price: '9.99' },
  { id: 1, name: 'Sauce Labs Bolt T-Shirt', desc: 'Get your testing superhero on with the Sauce Labs bolt T-shirt.', price: '15.99' },
  { id: 5, name: 'Sauce Labs Fleece Jacket', desc: "It's not every day that you come across a midweight quarter-zip fleece jacket.", price: '49.99' },
  { id: 2, name: 'Sauce Labs Onesie', desc: "Rib snap infant onesie for the junior automation engineer in development.", price: '7.99' },
  { id: 3, name: 'Test.allTheThings() T-Shirt (Red)', desc: 'This classic Sauce Labs t-shirt is perfect to wear when cozying up to your keyboard.', price: '15.99' },
];

const slug = (name) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-$/, '');

function Item({ p, inCart, toggle }) {
  return (
    <div className="inventory_item" data-test="inventory-item">
      <div className="inventory_item_img">
        <a href="#" id={`item_${p.id}_img_link`} onClick={(e) => e.preventDefault()}>
          <img alt={p.name} className="inventory_item_img" src={`data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' width='80' height='80'/>`} />
        </a>
      </div>
      <div className="inventory_item_description" data-test="inventory-item-description">
        <div className="inventory_item_label">
          <a href="#" id={`item_${p.id}_title_link`} onClick={(e) => e.preventDefault()}>
            <div className="inventory_item_name" data-test="inventory-item-name">{p.name}</div>
          </a>
          <div className="inventory_item_desc" data-test="inventory-item-desc">{p.desc}</div>
        </div>
        <div className="pricebar">
          <div className="inventory_item_price" data-test="inventory-item-price">${p.price}</div>
          <button className="btn btn_small btn_inventory" id={`${inCart ? 'remove' : 'add-to-cart'}-${slug(p.name)}`} onClick={toggle}>
            {inCart ? 'Remove' : 'Add to cart'}
          </button>
        </div>
      </div>
    </div>
  );
}

function Inventory() {
  const [cart, setCart] = useState([]);
  const toggle = (id) => setCart(cart.includes(id) ? cart.filter((x) => x !== id) : [...cart, id]);
  return (
    <div id="page_wrapper">
      <div className="primary_header">
        <div className="app_logo">Swag Labs</div>
        <div id="shopping_cart_container">
          <a className="shopping_cart_link" href="#cart" data-test="shopping-cart-link">
            {cart.length > 0 && <span className="shopping_cart_badge">{cart.length}</span>}
          </a>
        </div>
      </div>
      <div className="header_secondary_container"><span className="title">Products</span></div>
      <div id="inventory_container">
        <div className="inventory_list">
          {products.map((p) => (
            <Item key={p.id} p={p} inCart={cart.includes(p.id)} toggle={() => toggle(p.id)} />
          ))}
        </div>
      </div>
      <ul id="cart" hidden>{cart.map((id) => <li key={id}>{products.find((p) => p.id === id).name}</li>)}</ul>
    </div>
  );
}

createRoot(document.getElementById('root')).render(<Inventory />);
