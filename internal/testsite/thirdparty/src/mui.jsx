// MUI (Material UI): Select, Autocomplete, Menu, Checkbox, Tabs, Dialog.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Autocomplete, Box, Button, Checkbox, Dialog, DialogActions, DialogContent, DialogTitle, FormControl, FormControlLabel, InputLabel, Menu, MenuItem, Select, Tab, Tabs, TextField } from '@mui/material';

const films = ['The Godfather', 'Pulp Fiction', 'Fight Club', 'Forrest Gump', 'Inception', 'The Matrix'];

function App() {
  const [age, setAge] = useState('');
  const [film, setFilm] = useState(null);
  const [anchor, setAnchor] = useState(null);
  const [out, setOut] = useState('');
  const [terms, setTerms] = useState(false);
  const [tab, setTab] = useState(0);
  const [open, setOpen] = useState(false);
  return (
    <Box sx={{ p: 2, width: 420 }}>
      <h1>MUI</h1>
      <FormControl fullWidth sx={{ mb: 2 }}>
        <InputLabel id="age-label">Age</InputLabel>
        <Select labelId="age-label" id="age" value={age} label="Age" onChange={e => setAge(e.target.value)}>
          <MenuItem value={10}>Ten</MenuItem><MenuItem value={20}>Twenty</MenuItem><MenuItem value={30}>Thirty</MenuItem>
        </Select>
      </FormControl>
      <Autocomplete options={films} value={film} onChange={(e, v) => setFilm(v)} renderInput={p => <TextField {...p} label="Movie" />} sx={{ mb: 2 }} />
      <Button id="account" variant="outlined" onClick={e => setAnchor(e.currentTarget)}>Account</Button>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        <MenuItem onClick={() => { setOut('profile'); setAnchor(null); }}>Profile</MenuItem>
        <MenuItem onClick={() => { setOut('logout'); setAnchor(null); }}>Logout</MenuItem>
      </Menu>
      <FormControlLabel control={<Checkbox checked={terms} onChange={e => setTerms(e.target.checked)} />} label="I accept the terms" />
      <Tabs value={tab} onChange={(e, v) => setTab(v)}><Tab label="Overview" /><Tab label="Billing" /></Tabs>
      <div role="tabpanel">{tab === 0 ? 'Overview panel' : 'Billing panel: no invoices'}</div>
      <Button variant="contained" onClick={() => setOpen(true)} sx={{ mt: 2 }}>Invite member</Button>
      <Dialog open={open} onClose={() => setOpen(false)}>
        <DialogTitle>Invite a member</DialogTitle>
        <DialogContent><TextField id="email" label="Email address" type="email" variant="standard" /></DialogContent>
        <DialogActions><Button onClick={() => setOpen(false)}>Cancel</Button><Button onClick={() => { setOut('invited ' + document.getElementById('email').value); setOpen(false); }}>Send invite</Button></DialogActions>
      </Dialog>
      <p id="out">{out}</p>
      <p id="state">{String(age)}|{film || ''}|{String(terms)}|{tab}</p>
    </Box>
  );
}
createRoot(document.getElementById('root')).render(<App />);
