// Radix UI primitives (the ones shadcn/ui wraps): DropdownMenu with a
// submenu and a checkbox item, Dialog, Popover, Slider.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import * as Dialog from '@radix-ui/react-dialog';
import * as Popover from '@radix-ui/react-popover';
import * as Slider from '@radix-ui/react-slider';

const box = { background: '#fff', border: '1px solid #ccc', padding: 6 };

function App() {
  const [out, setOut] = useState('');
  const [bookmarks, setBookmarks] = useState(false);
  const [name, setName] = useState('Pedro Duarte');
  const [vol, setVol] = useState([50]);
  return (
    <main style={{ padding: 20 }}>
      <h1>Radix UI</h1>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger>Customise</DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content style={box}>
            <DropdownMenu.Item onSelect={() => setOut('new tab')}>New Tab</DropdownMenu.Item>
            <DropdownMenu.Sub>
              <DropdownMenu.SubTrigger>More Tools</DropdownMenu.SubTrigger>
              <DropdownMenu.Portal>
                <DropdownMenu.SubContent style={box}>
                  <DropdownMenu.Item onSelect={() => setOut('save page')}>Save Page As…</DropdownMenu.Item>
                  <DropdownMenu.Item onSelect={() => setOut('dev tools')}>Developer Tools</DropdownMenu.Item>
                </DropdownMenu.SubContent>
              </DropdownMenu.Portal>
            </DropdownMenu.Sub>
            <DropdownMenu.CheckboxItem checked={bookmarks} onCheckedChange={setBookmarks}>Show Bookmarks</DropdownMenu.CheckboxItem>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      <div style={{ marginTop: 20 }}>
        <Dialog.Root>
          <Dialog.Trigger>Edit profile</Dialog.Trigger>
          <Dialog.Portal>
            <Dialog.Overlay style={{ position: 'fixed', inset: 0, background: 'rgba(0,0,0,.4)' }} />
            <Dialog.Content style={{ ...box, position: 'fixed', top: '30%', left: '30%' }}>
              <Dialog.Title>Edit profile</Dialog.Title>
              <Dialog.Description>Make changes to your profile here.</Dialog.Description>
              <label htmlFor="name">Name</label> <input id="name" defaultValue={name} />
              <Dialog.Close onClick={() => setName(document.getElementById('name').value)}>Save changes</Dialog.Close>
              <Dialog.Close aria-label="Close">×</Dialog.Close>
            </Dialog.Content>
          </Dialog.Portal>
        </Dialog.Root>
      </div>
      <div style={{ marginTop: 20 }}>
        <Popover.Root>
          <Popover.Trigger>Dimensions</Popover.Trigger>
          <Popover.Portal>
            <Popover.Content style={box}>
              <p>Set the width.</p>
              <label htmlFor="width">Width</label> <input id="width" defaultValue="100%" onChange={e => setOut('width ' + e.target.value)} />
            </Popover.Content>
          </Popover.Portal>
        </Popover.Root>
      </div>
      <div style={{ marginTop: 20 }}>
        <span id="vol-label">Volume</span>
        <Slider.Root value={vol} onValueChange={setVol} max={100} step={1} style={{ position: 'relative', display: 'flex', alignItems: 'center', width: 200, height: 20 }}>
          <Slider.Track style={{ background: '#ccc', position: 'relative', flexGrow: 1, height: 3 }}><Slider.Range style={{ position: 'absolute', background: '#333', height: '100%' }} /></Slider.Track>
          <Slider.Thumb aria-labelledby="vol-label" style={{ display: 'block', width: 20, height: 20, background: '#fff', border: '1px solid #333', borderRadius: 10 }} />
        </Slider.Root>
      </div>
      <p id="out">{out}</p>
      <p id="state">{name}|{String(bookmarks)}|{vol[0]}</p>
    </main>
  );
}
createRoot(document.getElementById('root')).render(<App />);
