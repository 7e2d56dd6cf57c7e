//! TEMPORARY stand-in for `crate::answer` until the FINAL detector lands.
#[derive(Clone, Debug, Default)]
pub(crate) struct FinalDetector;
#[derive(Clone, Copy, Debug)]
pub(crate) struct FinalMatch {
    pub(crate) ambiguous: bool,
}
impl FinalDetector {
    pub(crate) fn find(&self, text: &str) -> Option<FinalMatch> {
        text.contains("FINAL(")
            .then_some(FinalMatch { ambiguous: false })
    }
}
/// TEMPORARY: the answer text of a FINAL signal.
pub(crate) fn final_answer(content: &str) -> Option<String> {
    let start = content.find("FINAL(")? + 6;
    let end = content[start..].find(')')? + start;
    Some(content[start..end].to_owned())
}
