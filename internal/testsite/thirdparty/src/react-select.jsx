import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import Select from 'react-select';

const flavours = [
  { value: 'chocolate', label: 'Chocolate' }, { value: 'strawberry', label: 'Strawberry' },
  { value: 'vanilla', label: 'Vanilla' }, { value: 'pistachio', label: 'Pistachio' },
];

function App() {
  const [one, setOne] = useState(null);
  const [many, setMany] = useState([]);
  return (
    <main style={{ padding: 20, width: 400 }}>
      <h1>react-select</h1>
      <label htmlFor="flavour">Flavour</label>
      <Select inputId="flavour" options={flavours} value={one} onChange={setOne} />
      <label htmlFor="toppings">Toppings</label>
      <Select inputId="toppings" isMulti options={flavours} value={many} onChange={setMany} />
      <p id="out">{one ? one.value : ''}|{many.map(m => m.value).join(',')}</p>
    </main>
  );
}
createRoot(document.getElementById('root')).render(<App />);
