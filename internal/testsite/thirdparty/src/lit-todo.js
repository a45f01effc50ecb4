// A to-do list as a Lit web component: its items live in a shadow root,
// and each item's Delete button shows only on hover, by CSS alone.
import { LitElement, html, css } from 'lit';

class TodoList extends LitElement {
  static properties = { items: { state: true } };
  static styles = css`
    ul { list-style: none; padding: 0; width: 320px; }
    li { display: flex; justify-content: space-between; padding: 6px; border-bottom: 1px solid #ddd; }
    li .del { display: none; }
    li:hover .del { display: inline; }
  `;
  constructor() {
    super();
    this.items = ['Write report', 'Call Bob', 'Buy stamps'];
  }
  render() {
    return html`<ul>${this.items.map(t => html`<li><span>${t}</span><button class="del" @click=${() => this.remove(t)}>Delete</button></li>`)}</ul>
      <p id="left">${this.items.length} left</p>`;
  }
  remove(t) {
    this.items = this.items.filter(x => x !== t);
    document.getElementById('out').textContent = 'deleted ' + t;
  }
}
customElements.define('todo-list', TodoList);
