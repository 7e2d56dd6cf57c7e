//! One compiled monitor shared by many threads, each with its own run state: every run
//! is checkpointed in its middle and finished by *another* thread from the JSON, and
//! every run's verdicts are those of the same run uninterrupted on one thread.

use std::sync::Barrier;
use std::sync::mpsc;

use doneseq::{Message, Monitor, TaskConfig, Verdict};

use super::checks::{self, CONTENTS, ELEMENTS, RESPONDERS, TOOLS};

const THREADS: usize = 16;
const MESSAGES: usize = 2_000;

/// A pseudo-random message stream (xorshift64), different for each seed.
fn stream(seed: u64) -> Vec<Message<'static>> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % n as u64).unwrap()
    };
    (0..MESSAGES)
        .map(|_| {
            let role = u8::try_from(next(5)).unwrap();
            let responder = RESPONDERS[next(RESPONDERS.len())];
            let content = CONTENTS[next(CONTENTS.len())];
            let tools = &TOOLS[..next(3)];
            checks::message(role, responder, content, tools, next(4) == 0, next(10) == 0)
        })
        .collect()
}

/// A task of every kind of element: the pool, in sequences of one to four.
fn monitor() -> Monitor {
    let texts: Vec<String> = (0..ELEMENTS.len())
        .map(|i| {
            let len = 1 + i % 4;
            (0..len)
                .map(|k| ELEMENTS[(i + 7 * k) % ELEMENTS.len()])
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    Monitor::new(TaskConfig::from_dsl(texts).unwrap()).unwrap()
}

#[test]
fn many_threads_share_one_monitor_and_resume_each_others_checkpoints() {
    let monitor = monitor();
    let streams: Vec<Vec<Message>> = (0..THREADS as u64).map(stream).collect();
    let alone: Vec<Vec<Verdict>> = streams
        .iter()
        .map(|stream| {
            let mut run = monitor.start();
            stream
                .iter()
                .map(|m| monitor.observe(&mut run, m))
                .collect()
        })
        .collect();
    let stops = alone.iter().flatten().filter(|v| v.is_stop()).count();
    assert!(stops > THREADS * 10, "the runs stop often: {stops}");

    // Thread t runs stream t up to its cut, sends the checkpoint to thread t + 1, and
    // finishes the stream of thread t - 1 from the checkpoint it receives.
    let barrier = Barrier::new(THREADS);
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..THREADS).map(|_| mpsc::channel()).unzip();
    let finished: Vec<(usize, Vec<Verdict>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = receivers
            .into_iter()
            .enumerate()
            .map(|(t, inbox)| {
                let next = senders[(t + 1) % THREADS].clone();
                let (monitor, streams, barrier) = (&monitor, &streams, &barrier);
                scope.spawn(move || {
                    let stream = &streams[t];
                    let cut = MESSAGES / 3 + t * 37;
                    let mut run = monitor.start();
                    barrier.wait();
                    let verdicts: Vec<Verdict> = stream[..cut]
                        .iter()
                        .map(|m| monitor.observe(&mut run, m))
                        .collect();
                    let checkpoint = serde_json::to_string(&run).unwrap();
                    next.send((t, cut, verdicts, checkpoint)).unwrap();
                    let (s, cut, mut verdicts, checkpoint) = inbox.recv().unwrap();
                    let state = serde_json::from_str(&checkpoint).unwrap();
                    let mut run = monitor.resume(state).unwrap();
                    verdicts.extend(
                        streams[s][cut..]
                            .iter()
                            .map(|m| monitor.observe(&mut run, m)),
                    );
                    (s, verdicts)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(finished.len(), THREADS);
    for (t, (s, verdicts)) in finished.iter().enumerate() {
        assert_eq!(
            *s,
            (t + THREADS - 1) % THREADS,
            "thread {t} finished another run"
        );
        assert_eq!(verdicts, &alone[*s], "run {s}, finished by thread {t}");
    }
}
