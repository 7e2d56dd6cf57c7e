//! `check --json`'s rows, written by a thread of their own: the replay (reading,
//! matching) stays on the main thread and hands over each row as its index, its kind
//! and a copy of the run's progress bits (a few words), in batches; the writer lists
//! the sequences that progress, turns the rows into JSON and writes them. Listing,
//! formatting and writing a row cost about half as much as reading and matching its
//! message, so on two cores the rows come nearly for free.

use std::io::{self, BufWriter, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use doneseq::{Monitor, RunState};

use crate::rows::{Kinds, ProgressText, json_row};

/// Rows handed over at a time.
const BATCH: usize = 4096;

/// Batches in flight: the replay runs at most this far ahead of the writer.
const IN_FLIGHT: usize = 4;

/// Rows for the writer, and what the writer needs to know to write them.
#[derive(Default)]
struct Batch {
    /// Per row: its message's index and its kind.
    rows: Vec<(usize, u32)>,
    /// Each row's progress bits (`Monitor::progress_bits`), one after the other.
    bits: Vec<u64>,
    /// The JSON of the kinds of row first seen in this batch, in order.
    kinds: Vec<Box<[u8]>>,
    /// Bytes that end the output, after the rows: the writer then flushes and stops.
    tail: Option<Vec<u8>>,
}

/// The main thread's end: fills batches and sends them to the writer thread.
pub(crate) struct RowWriter {
    batch: Batch,
    /// How many kinds the writer has been sent.
    kinds_sent: usize,
    to_writer: SyncSender<Batch>,
    /// Batches the writer has emptied, to fill again (no allocation per batch).
    emptied: Receiver<Batch>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl RowWriter {
    /// Starts the writer thread, which writes `{"steps":[` and then the rows of runs
    /// of `monitor` to standard output.
    pub(crate) fn start(monitor: &Monitor) -> RowWriter {
        let (to_writer, from_main) = sync_channel::<Batch>(IN_FLIGHT);
        let (to_main, emptied) = sync_channel::<Batch>(IN_FLIGHT + 2);
        let monitor = monitor.clone();
        let thread = std::thread::spawn(move || write_rows(&monitor, &from_main, &to_main));
        RowWriter {
            batch: Batch::default(),
            kinds_sent: 0,
            to_writer,
            emptied,
            thread: Some(thread),
        }
    }

    /// Hands over one row: its message's index, its kind (of `kinds`) and the run's
    /// progress after it. An error when the writer stopped (it could not write).
    pub(crate) fn push(
        &mut self,
        kinds: &Kinds,
        index: usize,
        kind: u32,
        monitor: &Monitor,
        run: &RunState,
    ) -> io::Result<()> {
        let all = kinds.all();
        if all.len() > self.kinds_sent {
            let new = &all[self.kinds_sent..];
            self.batch.kinds.extend(new.iter().map(|k| k.json().into()));
            self.kinds_sent = all.len();
        }
        let batch = &mut self.batch;
        batch.bits.extend_from_slice(monitor.progress_bits(run));
        batch.rows.push((index, kind));
        if batch.rows.len() >= BATCH {
            self.send()?;
        }
        Ok(())
    }

    /// Sends the batch, and takes an emptied one (or a new one) to fill.
    fn send(&mut self) -> io::Result<()> {
        let next = self.emptied.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.batch, next);
        if self.to_writer.send(full).is_err() {
            return Err(self.join().err().unwrap_or_else(stopped));
        }
        Ok(())
    }

    /// Sends the last rows and `tail`, and waits for the writer to have written
    /// and flushed them.
    pub(crate) fn finish(mut self, tail: Vec<u8>) -> io::Result<()> {
        self.batch.tail = Some(tail);
        let last = std::mem::take(&mut self.batch);
        // A failed send means the writer stopped: its error says why.
        let _ = self.to_writer.send(last);
        self.join()
    }

    fn join(&mut self) -> io::Result<()> {
        match self.thread.take() {
            Some(thread) => thread.join().unwrap_or_else(|_| Err(stopped())),
            None => Err(stopped()),
        }
    }
}

fn stopped() -> io::Error {
    io::Error::other("the row writer stopped")
}

/// The writer thread: every batch's rows as JSON, then the tail.
fn write_rows(
    monitor: &Monitor,
    from_main: &Receiver<Batch>,
    to_main: &SyncSender<Batch>,
) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    out.write_all(b"{\"steps\":[")?;
    let text = ProgressText::new(monitor.sequences().len());
    let mut kinds: Vec<Box<[u8]>> = Vec::new();
    let mut row = Vec::new();
    let mut first = true;
    while let Ok(mut batch) = from_main.recv() {
        kinds.append(&mut batch.kinds);
        // Every row's bits are as many words (the monitor's).
        let words = batch.bits.len() / batch.rows.len().max(1);
        for (i, &(index, kind)) in batch.rows.iter().enumerate() {
            row.clear();
            if !first {
                row.push(b',');
            }
            first = false;
            let bits = &batch.bits[i * words..][..words];
            json_row(
                &mut row,
                &text,
                index,
                &kinds[kind as usize],
                monitor.progressing_in(bits),
            );
            out.write_all(&row)?;
        }
        if let Some(tail) = batch.tail.take() {
            out.write_all(&tail)?;
            return out.flush();
        }
        batch.rows.clear();
        batch.bits.clear();
        // The main thread may have enough spare batches already.
        let _ = to_main.try_send(batch);
    }
    // The main thread went away without a tail (it panicked): end the output as it
    // is.
    out.flush()
}
