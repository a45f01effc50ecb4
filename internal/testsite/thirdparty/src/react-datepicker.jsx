import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import DatePicker from 'react-datepicker';
import 'react-datepicker/dist/react-datepicker.css';

function App() {
  const [date, setDate] = useState(null);
  return (
    <main style={{ padding: 20 }}>
      <h1>react-datepicker</h1>
      <label htmlFor="due">Due date</label>
      <DatePicker id="due" selected={date} onChange={setDate} openToDate={new Date(2025, 2, 1)} dateFormat="yyyy-MM-dd" placeholderText="Pick a date" />
      <p id="out">{date ? date.getFullYear() + '-' + (date.getMonth() + 1) + '-' + date.getDate() : ''}</p>
    </main>
  );
}
createRoot(document.getElementById('root')).render(<App />);
