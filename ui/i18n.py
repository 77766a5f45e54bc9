"""English and Chinese for what raters and demo audiences read: tab names, the rating page, Compare.

Gradio translates in the browser (`gr.I18n`): the page follows the browser's language (zh, zh-CN,
zh-TW… get Chinese, anything else English) and the footer's Settings switch it. Only text marked
for translation is looked up, so after the page is built `translate(demo)` marks every label, info,
placeholder, Markdown and button text that has an entry in `ZH`; a handler that sends a fixed
sentence later (a status line, the default guidelines) marks it with `t()`. Keys are the English text
itself: a missing entry shows the English, never a key. The zh entries are plain text for Gradio's
ICU message format: no braces (tests/test_i18n.py checks).
"""

from __future__ import annotations

import json
from typing import Any

import gradio as gr

from arena.llm import EMBEDDED

from . import organizer_models

LETTERS = "ABCDEFGH"
DIMENSIONS_ZH = {
    "Coherence: logical, consistent, on topic": "连贯性：有逻辑、前后一致、切题",
    "Informativeness / creativity: says something useful or interesting": "信息量 / 创造性：内容有用或有趣",
    "Naturalness: reads like fluent human writing": "自然度：读起来像流畅的人写的",
}

ZH: dict[str, str] = {
    # The pairwise rating panel (ui/rating_pairwise.py)
    "How to vote (guidelines)": "如何投票（评分指南）",
    "**Read both responses to the prompt, then vote once:**\n\n- **A is better** (key 1) or **B is better** "
    "(key 2): the one you would rather get, as a whole.\n- **Tie** (key 3): about equally good. **Both bad** "
    "(key 4): neither is acceptable.\n\nOptionally tick why, or write a word, before you vote: the vote saves "
    "and the next item comes.\nResponses are **cut off after a fixed number of tokens on purpose**: don't mark "
    "one down because it\nstops mid-sentence. Which method wrote which stays hidden, and the sides differ "
    "between items and\nraters. You can go back and change a vote.": (
        "**请读完针对提示词的两个回答，然后投一票：**\n\n- **A 更好**（按键 1）或 **B 更好**（按键 2）：整体上你更想要的那个。\n"
        "- **平局**（按键 3）：差不多一样好。**都不好**（按键 4）：两个都不可接受。\n\n"
        "投票前可以勾选理由或写几个字：投票即保存，并进入下一项。\n回答**按固定的词元数截断是有意为之**：不要因为某个回答在句中停止而扣分。"
        "哪个方法写了哪个回答是隐藏的，左右位置在不同条目和评分者之间也不同。你可以返回修改投票。"
    ),
    "A is better (1)": "A 更好 (1)",
    "B is better (2)": "B 更好 (2)",
    "Tie (3)": "平局 (3)",
    "Both bad (4)": "都不好 (4)",
    "Why (optional)": "理由（可选）",
    "Anything else about your choice (optional)": "关于你的选择，还有什么想说的（可选）",
    "More accurate or on topic": "更准确或更切题",
    "Clearer, reads better": "更清楚，读起来更好",
    "More complete or useful": "更完整或更有用",
    "More concise": "更简洁",
    "Safer, less harmful": "更安全，危害更小",
    # app.py: the header and the tabs
    "# Decoding Arena\nOne prompt, several decoding methods, honest timing, blind ratings.": (
        "# 解码竞技场\n同一个提示词，多种解码方法，如实计时，盲评打分。"
    ),
    "Compare": "对比",
    "Rate (blind)": "盲评",
    "Results": "结果",
    "Organizer": "组织者",
    "Multi-arm trace": "多臂追踪",
    # The rating page
    "Rate each response from 1 (poor) to 5 (excellent). The responses come from different decoding "
    "methods; which is which stays hidden, and their order differs between items and raters. "
    "Your ratings are saved when you press **Submit**; you can go back and change them. "
    "To take part you need an invite code (or link) from the study's organizer.": (
        "请为每条回答打 1（差）到 5（优秀）分。这些回答来自不同的解码方法；哪条来自哪种方法不会公开，"
        "回答的顺序在不同题目和不同评分者之间也不相同。按下 **提交** 后评分即保存；之后仍可返回修改。"
        "参与评分需要研究组织者提供的邀请码（或链接）。"
    ),
    "Invite code or link": "邀请码或链接",
    "opened from your invite link: leave empty": "已通过邀请链接打开：留空即可",
    "Start / continue": "开始 / 继续",
    "Prompt": "提示词",
    "How to rate (guidelines)": "如何评分（评分指南）",
    """**Rate each response on its own, from 1 to 5, on three things:**

- **Coherence**: is it logical, consistent and on topic? *1* contradicts itself or drifts off topic ·
  *3* mostly holds together, with a slip or two · *5* clear and consistent from start to end.
- **Informativeness / creativity**: does it say something useful or interesting? *1* empty or
  generic · *3* some substance · *5* specific, useful or genuinely inventive.
- **Naturalness**: does it read like fluent human writing? *1* broken or robotic · *3* understandable
  but awkward · *5* reads as if a fluent person wrote it.

Responses are **cut off after a fixed number of tokens on purpose**: don't mark a response down
because it stops mid-sentence. The order of the responses is random; which method wrote which stays
hidden. You can go back and change a rating.
""": """**请单独评价每条回答，按以下三个方面各打 1 到 5 分：**

- **连贯性**：是否有逻辑、前后一致、切题？*1* 自相矛盾或跑题 · *3* 大体连贯，偶有疏漏 · *5* 从头到尾清晰一致。
- **信息量 / 创造性**：是否说出了有用或有趣的内容？*1* 空洞或泛泛而谈 · *3* 有一些实质内容 · *5* 具体、有用或确有新意。
- **自然度**：读起来是否像流畅的人写的？*1* 不通顺或机械 · *3* 能看懂但别扭 · *5* 像母语流利的人写的。

回答**有意在固定的 token 数后截断**：不要因为回答在句子中间停下而扣分。回答的顺序是随机的；
哪种方法写了哪条回答不会公开。你可以返回修改评分。
""",
    "Can't judge": "无法判断",
    "Keys: **1–5** score the focused row and move on to the next (then the next response, then Submit) · "
    "**0** can't judge · **Ctrl+Enter** submits. Mark **Can't judge** when a dimension cannot be judged "
    "for a response (it counts as answered, not as a score).": (
        "按键：**1–5** 为当前行打分并跳到下一行（然后是下一条回答，最后是提交）· **0** 无法判断 · "
        "**Ctrl+Enter** 提交。某个方面无法评价时选择 **无法判断**（算作已作答，不计分）。"
    ),
    "Skip this item, or flag a problem": "跳过此题，或报告问题",
    "Reason to skip this item": "跳过此题的原因",
    "I can't read the language": "我看不懂这种语言",
    "The prompt is unclear": "提示词不清楚",
    "Offensive or unsafe content": "冒犯性或不安全的内容",
    "Other (say why)": "其他（请说明原因）",
    "Skip: say why (needed for Other)": "跳过：说明原因（选“其他”时必填）",
    "Skip this item": "跳过此题",
    "Flag": "报告",
    "The whole item": "整道题",
    "Flag reason": "报告原因",
    "Broken or empty output": "输出损坏或为空",
    "Problem with the prompt": "提示词有问题",
    "Contains personal data": "包含个人数据",
    "Flag note (optional; needed for Other)": "报告说明（可选；选“其他”时必填）",
    "A skipped item counts as done and gets no scores from you; you can still go back and rate it. "
    "A flag goes to the organizer; your scores on screen stay, and you can go on rating.": (
        "跳过的题目算作已完成，不计入你的评分；你仍可返回为它打分。报告会发送给组织者；"
        "屏幕上的评分会保留，你可以继续评分。"
    ),
    "**Your scores are saved.** One more question about this item; it does not change your scores, "
    "and if you have no idea, choose **Don't know**.": (
        "**你的评分已保存。** 关于此题还有一个问题；它不会改变你的评分，如果完全不知道，请选 **不知道**。"
    ),
    "**Your vote is saved.** One more question about this pair; it does not change your vote, "
    "and if you have no idea, choose **Don't know**.": (
        "**你的投票已保存。** 关于这组回答还有一个问题；它不会改变你的投票，如果完全不知道，请选 **不知道**。"
    ),
    "Don't know": "不知道",
    "Send answer and go on": "提交答案并继续",
    "← Previous": "← 上一题",
    "Submit ratings": "提交评分",
    "Next →": "下一题 →",
    "Opened by your invite link: the code is kept by this browser until it closes.": (
        "已通过你的邀请链接打开：此浏览器会保留邀请码直到关闭。"
    ),
    "Leave this study on this browser": "在此浏览器上退出本研究",
    # Compare
    "Ask a question, or paste a text to continue": "提一个问题，或粘贴一段要续写的文字",
    "Raw continuation (no chat template)": "直接续写（不用对话模板）",
    "Record why each token was chosen": "记录每个 token 被选中的原因",
    "For the token view below; the recording's cost is inside that run's timing": (
        "用于下方的 token 视图；记录的开销计入该次运行的计时"
    ),
    "The article's scenarios (zh and en)": "文章中的场景（中文和英文）",
    "Article 003's tasks: each output gets an automatic check (docs/tasks.md)": (
        "文章 003 的任务：每个输出都会自动检查（docs/tasks.md）"
    ),
    "Methods": "方法",
    "Article presets": "文章预设",
    "Creative": "创意",
    "Balanced": "平衡",
    "Precise": "精确",
    "Run": "运行",
    "Stop": "停止",
    "Rate these blind": "盲评这些输出",
    "Settings": "设置",
    "Seed (torch.manual_seed before each method; empty = random)": "随机种子（每种方法前调用 torch.manual_seed；留空 = 随机）",
    "Timing": "计时",
    "Latency and throughput": "延迟与吞吐量",
    "Running…": "运行中…",
    "Starting…": "正在开始…",
    "**Stopped** before it started.": "开始前已 **停止**。",
    "⚠ That example is in a study being rated, so Compare will not run it until the study is published.": (
        "⚠ 该示例属于正在评分的研究，研究发布前“对比”不会运行它。"
    ),
    # arena/language.py: the warning for a Chinese prompt on an English-only model (after its name)
    "is trained on English only, so a Chinese prompt gets an English or off-topic answer. For Chinese, "
    "start the app with the multilingual Gemma 3 270M: `python app.py --model gemma-3-270m` (docs/models.md).": (
        "只用英文训练，中文提示词会得到英文或离题的回答。要用中文，请用多语言的 Gemma 3 270M 启动应用："
        "`python app.py --model gemma-3-270m`（docs/models.md）。"
    ),
    # The Results tab, the Organizer and the trace tab (issue 24)
    "Study": "研究",
    "Refresh studies": "刷新研究列表",
    "Scenarios (empty = all)": "场景（留空 = 全部）",
    "Raters (empty = all)": "评分者（留空 = 全部）",
    "Perplexity under the loaded model": "用已加载的模型计算困惑度",
    "Show results": "显示结果",
    "Choose a study and press **Show results**.": "选择一个研究，然后按 **显示结果**。",
    "Per method": "每种方法",
    (
        "**Reading the table.** ↑ higher is better, ↓ lower is better. Human scores: mean over prompts on a "
        "1–5 scale, [95% CI]. **PPL** (perplexity): how surprised the loaded model is by the text; lower = "
        "more predictable, fluent text (too low can mean bland or repetitive). **distinct-2**: share of word "
        "pairs that are unique; higher = more varied. **repetition %**: outputs that repeat a phrase 3+ times "
        "in a row. **Self-BLEU4**: how much a method's outputs resemble each other; lower = more diverse. "
        "**Zipf**: slope of the word-frequency curve; natural text is near 1, no better/worse direction. "
        "**latency ms**: mean wall time per output in milliseconds. **tokens/s**: new tokens per second of "
        "generation."
    ): (
        "**读表方法。** ↑ 越高越好，↓ 越低越好。人工评分："
        "各提示词上的平均分（1–5 分制），[95% CI]。**PPL**（困惑度）："
        "已加载的模型对这段文字有多意外；越低表示文字越可预测、越流畅（太低可能意味着平淡或重复）。"
        "**distinct-2**：不重复的词对所占的比例，越高越多样。**重复率 %**："
        "连续 3 次以上重复同一短语的输出所占的比例。**Self-BLEU4**："
        "同一方法的各条输出彼此有多相似，越低越多样。**Zipf**：词频曲线的斜率，自然文本接近 1，没有好坏之分。"
        "**latency ms**：每条输出的平均耗时（毫秒）。**tokens/s**："
        "生成时每秒产生的新 token 数。"
    ),
    "Human scores": "人工评分",
    "Quality against latency": "质量与延迟",
    "CSV (numbers per method)": "CSV（每种方法的数据）",
    "What the ratings say (items and raters as samples)": "评分说明了什么（题目和评分者都视为样本）",
    "Statistics": "统计方法",
    # The leaderboard across studies (issue 26)
    "Leaderboard across studies (same models)": "跨研究排行榜（相同模型）",
    "Model set": "模型组合",
    "Studies (empty = all of this model set)": "研究（留空 = 该模型组合的全部研究）",
    "Show the leaderboard": "显示排行榜",
    "Length-adjusted contrast (exploratory): the pairs above at equal length "
    "(item + method + log2 length, items as clusters)": "长度调整后的对比（探索性）：上面各对方法在长度相同时的差异（题目 + 方法 + log2 长度，以题目为聚类）",
    "Systems across studies": "各研究中的系统",
    "What the board rests on (one row per study)": "排行榜依据的数据（每个研究一行）",
    (
        "One leaderboard over the published studies of the same models. Pairwise studies give their votes; a 1–5 "
        "study gives one comparison per prompt, rater and pair of methods (the higher mean score wins, equal "
        "scores tie). Bradley–Terry on the Elo scale (mean 1000), 95% intervals resampling prompts within their "
        "study, raters across studies and (prompt, rater) cells; a rank only where intervals separate; a system "
        "with under 30 comparisons or 10 prompts is provisional. A method run with other settings in another "
        "study is another system. A study still being rated is never on the board."
    ): (
        "对相同模型的已发布研究给出一个排行榜。成对比较研究提供其投票；1–5 分研究对每个提示词、评分者和每对方法给出一次比较"
        "（平均分高者胜，分数相同为平局）。采用 Elo 刻度上的 Bradley–Terry 模型（均值 1000），95% 置信区间在各自研究内重抽提示词、"
        "跨研究重抽评分者以及（提示词，评分者）单元；只有区间分开时才给出名次；比较少于 30 次或提示词少于 10 个的系统为暂定。"
        "在另一个研究中用不同设置运行的方法算作另一个系统。仍在评分中的研究绝不会出现在排行榜上。"
    ),
    (
        "Fixed in advance (docs/statistics.md). **Items and raters are both samples**: the claim is about "
        "prompts and raters in general. A cell is one rater's score of a method on an item (the mean over its "
        "samples). Per method: the mean over items, 95% CI from item, rater and residual variance components "
        "with Satterthwaite degrees of freedom (3 raters give wide intervals: that is what 3 raters can "
        "tell). Pairwise (the primary analysis): the mean over items of the (item, rater) differences a − b, "
        "its 95% CI and t test, with the raters' own taste for a method as a variance component pooled over "
        "pairs and dimensions. **One family for the headline**: every pair × dimension is adjusted together "
        "(step-down max-T, never above Holm); the takeaway names only these. With 1–2 raters every result "
        "holds for these raters only. Exploratory, not in the headline: Friedman on items (raters fixed), the "
        "mixed model score ~ method + (1|item) + (1|rater) + (1|output) + (1|rater:method) + (1|item:rater) "
        "by REML with Satterthwaite df. Agreement: Krippendorff's alpha (ordinal) over outputs. Position: "
        "score shown first minus shown last, each output's own mean removed, t CI over items. Perplexity vs "
        "scores: Spearman within each method and with the method partialled out, never pooled. Calibration: "
        "benchmarks/bench_calibration.py."
    ): (
        "事先确定（docs/statistics.md）。**题目和评分者都是样本**："
        "结论针对的是一般的提示词和评分者。一个单元格是一位评分者对某方法在某题上的评分（多个样本时取平均）。每种方法："
        "各题的平均分，95% CI 来自题目、评分者和残差的方差分量，自由度用 Satterthwaite 近似（3 位评分者的区间很宽："
        "这正是 3 位评分者能说明的程度）。两两比较（主要分析）："
        "各题上（题目，评分者）差值 a − b 的平均值、其 95% CI 和 t 检验，评分者对某方法的个人偏好作为方差分量，在各方法对和各维度间合并估计。"
        "**标题结论只用一个检验族**：所有方法对 × 维度一起校正（逐步 max-T，从不高于 Holm）；"
        "结论只提这些结果。只有 1–2 位评分者时，每个结果只对这些评分者成立。探索性分析，不进标题结论："
        "按题目的 Friedman 检验（评分者视为固定），混合模型 score ~ method + (1|item) + (1|rater) + (1|output) + (1|rater:method) + (1|item:rater)，用 REML 估计、Satterthwaite 自由度。"
        "一致性：按输出计算的 Krippendorff alpha（有序）。位置效应："
        "先展示的评分减去最后展示的评分，去掉每条输出自身的均值，按题目的 t CI。困惑度与评分："
        "在每种方法内部、以及控制方法之后的 Spearman 相关，从不混合计算。校准："
        "benchmarks/bench_calibration.py。"
    ),
    "Pairwise (primary): mean (item, rater) difference, 95% CI, t test, p adjusted over the family": "两两比较（主要）：（题目，评分者）差值的平均、95% CI、t 检验、族内校正后的 p",
    "Friedman on items (exploratory: raters fixed)": "按题目的 Friedman 检验（探索性：评分者视为固定）",
    "Mixed model (exploratory): score ~ method + item + rater + output + rater:method + item:rater": (
        "混合模型（探索性）：score ~ method + item + rater + output + rater:method + item:rater"
    ),
    "Mixed model: variance components": "混合模型：方差分量",
    "Position effect: shown first − shown last": "位置效应：先展示 − 最后展示",
    "Inter-rater agreement (Krippendorff's alpha, ordinal)": "评分者间一致性（Krippendorff alpha，有序）",
    "Spearman: perplexity vs human scores, within each method": "Spearman：困惑度与人工评分（每种方法内部）",
    (
        "Organizer tools. Everything here needs the organizer password (set with the environment variable "
        "`ARENA_ORGANIZER_PASSWORD` on the server)."
    ): ("组织者工具。这里的一切操作都需要组织者密码（在服务器上用环境变量 `ARENA_ORGANIZER_PASSWORD` 设置）。"),
    "Organizer password": "组织者密码",
    "Create a study": "创建研究",
    "Raters see the study's name: keep method names out of it.": "评分者能看到研究名称：名称里不要出现方法名。",
    "Study name": "研究名称",
    "Prompts": "提示词",
    "Built-in scenarios: language": "内置场景：语言",
    "Pasted prompts (one per line)": "粘贴的提示词（每行一条）",
    "Prompt file (.csv with a 'prompt' column, .jsonl, or .txt with one per line)": "提示词文件（带 “prompt” 列的 .csv、.jsonl，或每行一条的 .txt）",
    "Samples per stochastic method": "每种随机方法的样本数",
    "Base seed (empty: a secret random one; each output's seed derives from it)": "基础随机种子（留空：使用保密的随机种子；每条输出的种子由它派生）",
    "empty: secret and random": "留空：保密且随机",
    "Guidelines for raters (Markdown; empty = the default shown below)": "给评分者的指南（Markdown；留空 = 下面显示的默认指南）",
    (
        "Measure the blind: after scoring (or voting on) each item, raters are asked which response came "
        "from the chosen method (in a pairwise study, on every pair); never told if they were right. "
        "The blinding index is shown once the study is closed."
    ): (
        "测量盲评效果：每题评分（或投票）后，询问评分者哪条回答来自所选的方法（成对研究中每组配对都询问）；"
        "从不告诉他们是否猜对。研究关闭后显示盲法指数。"
    ),
    (
        "How raters judge: each response 1–5, or two responses side by side and one vote (A better, B better, "
        "tie, both bad; one sample per method)"
    ): ("评分方式：每条回答打 1–5 分，或两条回答并排、投一票（A 更好、B 更好、平局、都不好；每种方法一个样本）"),
    "The default guidelines": "默认指南",
    "Create study and generate its outputs": "创建研究并生成输出",
    "Studies and progress": "研究与进度",
    "Refresh": "刷新",
    "Resume generation": "继续生成",
    "Studies": "研究列表",
    "Progress per rater (chosen study)": "每位评分者的进度（所选研究）",
    "Flags from raters (chosen study): problems they reported": "评分者的报告（所选研究）：他们指出的问题",
    "Open for rating": "开放评分",
    "Close rating": "结束评分",
    "Publish results": "发布结果",
    (
        "A study is a **draft** until its outputs are generated, then **open**: raters with an invite code "
        "rate it. **Close** ends rating and shows you the mapping and seeds; **Publish** makes its results "
        "public in the Results tab. Until then nothing per method leaves the server."
    ): (
        "研究在输出生成之前是 **草稿**，之后为 **开放**：持有邀请码的评分者可以评分。"
        "**结束** 会停止评分，并向你显示对应关系和随机种子；**发布** 会在“结果”页公开其结果。"
        "在此之前，任何按方法区分的信息都不会离开服务器。"
    ),
    "Invite raters (names, comma or line separated; display only)": "邀请评分者（姓名，用逗号或换行分隔；仅用于显示）",
    "Create invite codes": "生成邀请码",
    "Revoke a rater's code": "撤销某位评分者的邀请码",
    "Revoke": "撤销",
    "New invite codes: shown once, only their hashes are kept. Send each rater their link.": "新的邀请码：只显示一次，服务器只保存其哈希值。请把各自的链接发给每位评分者。",
    "Download the new invite codes (CSV)": "下载新的邀请码（CSV）",
    "Enrolled raters (chosen study)": "已加入的评分者（所选研究）",
    "Position balance (pass/fail while open; counts per method and position after closing)": "位置平衡（开放期间显示通过/未通过；关闭后显示每种方法在各位置的次数）",
    "Balanced blocks per rater": "每位评分者的平衡区组",
    "Reveal the blind mapping": "揭示盲评对应关系",
    "Export ratings (CSV)": "导出评分（CSV）",
    "Export ratings (JSONL)": "导出评分（JSONL）",
    "Export votes (pairwise, closed)": "导出投票（成对比较，已关闭）",
    "Export preference pairs (DPO JSONL, closed)": "导出偏好对（DPO JSONL，已关闭）",
    "Blind mapping: which method stood behind each label": "盲评对应关系：每个标签背后是哪种方法",
    (
        "The export covers every study and downloads in the browser (nothing is kept on the server). Until a "
        "study is closed its rows carry no method, seed, settings or output id: you are blind too. The "
        "command line exports everything: `python -m arena.export -o ratings.csv`."
    ): (
        "导出包含所有研究，并在浏览器中下载（服务器上不保留任何文件）。"
        "研究关闭之前，导出的行不含方法、种子、设置或输出编号：你也处于盲态。命令行可以导出全部内容："
        "`python -m arena.export -o ratings.csv`。"
    ),
    "Import an export (.csv or .jsonl)": "导入导出文件（.csv 或 .jsonl）",
    "Import": "导入",
    "Danger zone: delete a study or one rater's ratings": "危险操作：删除研究或某位评分者的评分",
    (
        "Deleting cannot be undone. Before anything is deleted, the study's ratings are exported (the file "
        "below; **Import** puts them back) together with every item and output, so nothing goes without a "
        "copy. Raters of a deleted study are told it no longer exists."
    ): (
        "删除无法撤销。删除之前，研究的评分会连同所有题目和输出一起导出（即下面的文件；"
        "**导入** 可以恢复），所以不会有任何内容在没有副本的情况下丢失。已删除研究的评分者会被告知该研究已不存在。"
    ),
    "Type the study's exact name to confirm": "输入研究的完整名称以确认",
    "Rater (only to delete one rater's ratings)": "评分者（仅在删除某位评分者的评分时填写）",
    "Delete this study": "删除此研究",
    "Delete this rater's ratings in this study": "删除此评分者在此研究中的评分",
    "Export written before deleting": "删除前写出的导出文件",
    "Is the blind holding? Form check and blinding index (chosen study)": "盲评是否有效？形式检查与盲法指数（所选研究）",
    (
        "**Form check** (before raters start, and after the study is closed): a simple classifier that sees "
        "only the form of the responses (length, whether it stopped by itself or ran into max tokens, how it "
        "ends, repetition, distinct words), trained on the other items, picks each method's response on every "
        "item. Far above chance means raters can tell that method by its form, whatever its "
        "quality.\n\n**Blinding index** (once the study is closed; raters are never told): from raters' answers "
        'to "Which response do you think came from METHOD?". 0 = chance, 1 = always recognised, negative = '
        'systematically wrong; "don\'t know" counts as chance; 95% CI over items (docs/blinding.md).'
    ): (
        "**形式检查**（评分者开始之前，以及研究关闭之后）："
        "一个只看回答形式的简单分类器（长度、是自行结束还是达到最大 token 数、如何结尾、重复、不同词的数量），在其他题目上训练，在每道题上挑出每种方法的回答。"
        "远高于随机水平意味着评分者可以凭形式认出该方法，不论其质量如何。\n\n**盲法指数**（研究关闭后；"
        "从不告诉评分者）：来自评分者对“你认为哪条回答来自 METHOD？”的回答。"
        "0 = 随机水平，1 = 总能认出，负数 = 系统性地猜错；“不知道”按随机水平计；"
        "按题目的 95% CI（docs/blinding.md）。"
    ),
    "Form check": "形式检查",
    "Blinding index": "盲法指数",
    "Blinding index per method": "每种方法的盲法指数",
    "Raters, position and power": "评分者、位置与检验效能",
    "**Rater diagnostics and position effect** of a study (organizer only: shows rater names).": "研究的 **评分者诊断与位置效应**（仅组织者可见：会显示评分者姓名）。",
    "Load studies": "加载研究",
    "Diagnose": "诊断",
    "Per rater": "每位评分者",
    "Position effect: shown first − shown last (95% CI over items)": "位置效应：先展示 − 最后展示（按题目的 95% CI）",
    (
        "**Power planner**: how many items × raters give 80% power to detect a difference Δ between two "
        "methods with the primary analysis (items and raters as samples, every pair × dimension adjusted "
        "together), by simulation."
    ): (
        "**检验效能规划**："
        "用主要分析（题目和评分者都视为样本，所有方法对 × 维度一起校正）检测两种方法之间差异 Δ，需要多少题目 × 评分者才能达到 80% 的检验效能，通过模拟估计。"
    ),
    "Pilot study for the variances (empty: defaults)": "用于估计方差的预研究（留空：使用默认值）",
    "Dimension": "维度",
    "Δ (score points)": "Δ（分）",
    "Methods in the study": "研究中的方法数",
    "Items to try": "要尝试的题目数",
    "Raters to try": "要尝试的评分者数",
    "Simulated studies per design": "每种设计模拟的研究数",
    "Plan": "规划",
    "Power by items (rows) and raters (columns)": "检验效能：按题目数（行）和评分者数（列）",
    (
        "Run the **multi-arm decoder** on one prompt and see each arm's path, its scores, every backtrack and prune. The "
        "verifier scores paths from the generating model's own signals (variance of token log-probabilities, "
        "entropy of its next-token distribution). It is **not** the article's trained 200M verifier, which is "
        "not published."
    ): (
        "在一个提示词上运行 **多臂解码器**，查看每个分支的路径、得分，以及每次回溯和剪枝。"
        "验证器根据生成模型自身的信号（token 对数概率的方差、下一个 token 分布的熵）为路径打分。"
        "它 **不是** 文章中训练的 200M 验证器，那个验证器没有公开。"
    ),
    "A question or a text to continue": "一个问题，或一段要续写的文字",
    "Seed": "随机种子",
    "Trace": "追踪",
    "Answer (the arm with the highest mean score)": "答案（平均得分最高的分支）",
    "Arms over the loop steps": "各分支在循环步骤中的变化",
    "Arms": "分支",
    "Backtracks and prunes": "回溯与剪枝",
}
for _english, _chinese in DIMENSIONS_ZH.items():
    for _letter in LETTERS:
        ZH[f"{_english} ({_letter})"] = f"{_chinese}（{_letter}）"
for _letter in LETTERS:
    ZH[f"Comment on {_letter} (optional)"] = f"对 {_letter} 的评论（可选）"
    ZH[f"Response {_letter}"] = f"回答 {_letter}"
# The Organizer's model choice (ui/organizer_models.py), a line per embedded model included.
ZH[organizer_models.MODELS_LABEL] = "模型"
ZH[organizer_models.MODELS_INFO] = (
    "只选本应用的模型：按方法比较的研究，与以前一样。勾选其他模型后，评分者比较每个模型上的每种方法"
    "（与方法一样盲评）；每个模型在生成其输出时才加载，每个输出都记录其运行精度"
    "（@int8：torchao int8 权重；@bf16 / @fp32：数据类型）"
)
ZH[organizer_models.SCORER_LABEL] = "困惑度评分模型（有多个模型时：由同一个模型为所有系统的输出打分）"
ZH[organizer_models.SCORER_FIRST] = "第一个选中的模型"
for _model in EMBEDDED.values():
    ZH[organizer_models.model_note(_model)] = organizer_models.model_note(_model, zh=True)

I18N = gr.I18n(zh=ZH)
# Gradio strips a Markdown value's outer whitespace (the default guidelines end with a newline).
_STRIPPED = {english.strip(): english for english in ZH}
# What `translate` marks: these attributes of any component; `value` only where it is the text shown.
TEXT_ATTRS = ("label", "info", "placeholder")
VALUE_TYPES = (gr.Markdown, gr.Button)


def key_of(text: Any) -> str | None:
    """The table's key for `text` (itself, or the key it is with outer whitespace stripped), else None."""
    if not isinstance(text, str):
        return None
    return text if text in ZH else _STRIPPED.get(text.strip())


def t(text: Any) -> Any:
    """`text` marked for the browser to translate when the table has it, else `text` unchanged."""
    key = key_of(text)
    return text if key is None else str(I18N(key))


def plain(text: Any) -> Any:
    """The English of a marked text (what a test or a log wants), else `text` unchanged."""
    if isinstance(text, str) and text.startswith(MARK):
        try:
            return json.loads(text[len(MARK) :])["key"]
        except (ValueError, KeyError, TypeError):
            return text
    return text


MARK = "__i18n__"


def reads(value: Any, english: str) -> bool:
    """Whether a value the browser sent back (English, Chinese, or still marked) is the text `english`."""
    return value in (english, ZH.get(english), t(english))


def translate(demo: gr.Blocks) -> int:
    """Mark every static text of `demo` that has a Chinese entry; returns how many were marked.

    Choices are left as they are: Gradio looks a choice's plain text up in the table itself."""
    marked = 0
    for block in demo.blocks.values():
        attrs = TEXT_ATTRS + (("value",) if isinstance(block, VALUE_TYPES) else ())
        for attr in attrs:
            value = getattr(block, attr, None)
            if key_of(value) is not None:
                setattr(block, attr, t(value))
                marked += 1
    return marked
