// Headless UI's Menu, Listbox, Switch and Combobox, as its docs show them.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Menu, MenuButton, MenuItem, MenuItems, Listbox, ListboxButton, ListboxOption, ListboxOptions, Switch, Combobox, ComboboxInput, ComboboxOption, ComboboxOptions, Field, Label } from '@headlessui/react';

const people = ['Wade Cooper', 'Arlene Mccoy', 'Devon Webb', 'Tom Cook', 'Tanya Fox'];

function App() {
  const [out, setOut] = useState('');
  const [person, setPerson] = useState(people[0]);
  const [enabled, setEnabled] = useState(false);
  const [query, setQuery] = useState('');
  const [assignee, setAssignee] = useState(null);
  const filtered = query === '' ? people : people.filter(p => p.toLowerCase().includes(query.toLowerCase()));
  return (
    <main style={{ padding: 20 }}>
      <h1>Headless UI</h1>
      <Menu>
        <MenuButton>Options</MenuButton>
        <MenuItems anchor="bottom" style={{ background: '#fff', border: '1px solid #ccc' }}>
          <MenuItem><button onClick={() => setOut('edit')} style={{ display: 'block' }}>Edit</button></MenuItem>
          <MenuItem><button onClick={() => setOut('duplicate')} style={{ display: 'block' }}>Duplicate</button></MenuItem>
          <MenuItem><button onClick={() => setOut('archive')} style={{ display: 'block' }}>Archive</button></MenuItem>
        </MenuItems>
      </Menu>
      <Field style={{ marginTop: 20 }}>
        <Label>Assigned to</Label>
        <Listbox value={person} onChange={setPerson}>
          <ListboxButton id="person">{person}</ListboxButton>
          <ListboxOptions anchor="bottom" style={{ background: '#fff', border: '1px solid #ccc' }}>
            {people.map(p => <ListboxOption key={p} value={p} style={{ padding: 4 }}>{p}</ListboxOption>)}
          </ListboxOptions>
        </Listbox>
      </Field>
      <Field style={{ marginTop: 20 }}>
        <Label>Enable notifications</Label>
        <Switch checked={enabled} onChange={setEnabled} style={{ width: 44, height: 24, background: enabled ? '#2563eb' : '#ccc', borderRadius: 12 }} />
      </Field>
      <Field style={{ marginTop: 20 }}>
        <Label>Reviewer</Label>
        <Combobox value={assignee} onChange={setAssignee} onClose={() => setQuery('')}>
          <ComboboxInput displayValue={p => p || ''} onChange={e => setQuery(e.target.value)} />
          <ComboboxOptions anchor="bottom" style={{ background: '#fff', border: '1px solid #ccc' }}>
            {filtered.map(p => <ComboboxOption key={p} value={p} style={{ padding: 4 }}>{p}</ComboboxOption>)}
          </ComboboxOptions>
        </Combobox>
      </Field>
      <p id="out">{out}</p>
      <p id="state">{person}|{String(enabled)}|{assignee || ''}</p>
    </main>
  );
}
createRoot(document.getElementById('root')).render(<App />);
